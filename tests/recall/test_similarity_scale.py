"""Near-duplicate and disagreement checks over a whole store compare only the pairs that can qualify."""

import random

import pytest

from memdir.recall.similar import Similarity
from memdir.store.scan import MemoryHeader

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
@pytest.mark.parametrize("floor", [0.3, 0.4, 0.6, 0.8, 0.95])
def test_the_candidate_pairs_hold_every_pair_that_reaches_the_floor(seed, floor):
    similarity = Similarity(store(seed))
    candidates = similarity.candidates(floor)
    terms = similarity.terms
    for i in range(len(terms)):
        wanted = [j for j in range(i + 1, len(terms)) if similarity.overlap(terms[i], terms[j]) >= floor]
        assert set(wanted) <= set(candidates[i]), i
        assert candidates[i] == sorted(candidates[i])
    assert sum(map(len, candidates)) < len(terms) * (len(terms) - 1) / 2  # not every pair


def test_candidates_among_some_memories_pair_only_those():
    similarity = Similarity(store(4))
    among = list(range(0, 150, 3))
    chosen = set(among)
    candidates = similarity.candidates(0.4, among=among)
    terms = similarity.terms
    for i in range(len(terms)):
        assert set(candidates[i]) <= chosen
        if i in chosen:
            wanted = {j for j in among if j > i and similarity.overlap(terms[i], terms[j]) >= 0.4}
            assert wanted <= set(candidates[i])
