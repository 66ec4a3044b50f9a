"""Nearly identical memories over a whole store: only the pairs that can qualify are compared."""

import random

import pytest

from memdir.store.scan import MemoryHeader
from memdir.writes.near import IDENTICAL_FLOOR, Similarity, overlap

WORDS = [f"w{n}" for n in range(60)] + ["deploy", "staging", "release", "42", "43"]


def store(seed, count=150):
    rng = random.Random(seed)
    headers = []
    for i in range(count):
        words = rng.choices(WORDS, weights=[1 / (k + 1) for k in range(len(WORDS))], k=rng.randint(3, 12))
        if i and rng.random() < 0.2:  # a near copy of an earlier memory
            words = [*(headers[rng.randrange(i)].description or "").split()[:-1], rng.choice(WORDS)]
        description = " ".join(words)
        headers.append(MemoryHeader(f"m{i}.md", f"/s/m{i}.md", float(i), 10, description, None, f"m {i}"))
    return headers


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("floor", [0.3, 0.4, 0.6, 0.8, IDENTICAL_FLOOR, 0.95])
def test_the_candidate_pairs_hold_every_pair_that_reaches_the_floor(seed, floor):
    similarity = Similarity(store(seed))
    candidates = similarity.candidates(floor)
    terms = similarity.terms
    for i in range(len(terms)):
        wanted = [j for j in range(i + 1, len(terms)) if overlap(terms[i], terms[j]) >= floor]
        assert set(wanted) <= set(candidates[i]), i
        assert candidates[i] == sorted(candidates[i])
    assert sum(map(len, candidates)) < len(terms) * (len(terms) - 1) / 2  # not every pair


def test_numbers_count_and_the_name_does_not():
    def header(file, name, description):
        return MemoryHeader(file, f"/s/{file}", 1.0, 10, description, None, name)

    headers = [
        header("a.md", "Topic 1", "Concurrent topic number 1 of the load test"),
        header("b.md", "Topic 2", "Concurrent topic number 2 of the load test"),
        header("c.md", "Real DB", "Integration tests hit a real database, never mocks"),
        header("d.md", "Real DB in tests again", "Integration tests hit a real database, never mocks"),
    ]
    clusters = Similarity(headers).clusters()
    assert [[h.filename for h in cluster] for cluster in clusters] == [["c.md", "d.md"]]
