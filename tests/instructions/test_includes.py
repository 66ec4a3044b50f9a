import string

from hypothesis import given
from hypothesis import strategies as st

from memdir.instructions.globs import expand_braces, glob_matches, split_paths_frontmatter
from memdir.instructions.includes import extract_include_paths


def includes(text, base="/p"):
    return extract_include_paths(text, base, home="/home/u")


def test_include_forms_resolve_against_the_including_files_directory_and_home():
    text = "See @notes.md, @./a/b.md @~/global.md @/etc/x.md and @my\\ file.md#section."
    assert includes(text) == ["/p/notes.md,", "/p/a/b.md", "/home/u/global.md", "/etc/x.md", "/p/my file.md"]


def test_an_include_needs_whitespace_or_the_line_start_before_the_at_sign():
    assert includes("mail me at someone@example.com\n@first.md") == ["/p/first.md"]


def test_invalid_include_targets_are_ignored():
    assert includes("@ @/ @@x.md @#heading @%x @(y)") == []


def test_includes_inside_code_blocks_and_code_spans_are_not_followed():
    text = "\n".join(
        [
            "Intro @real.md",
            "```",
            "@fenced.md",
            "```",
            "Inline `@span.md` and ``@double.md`` but x`y`@after-span.md",
            "",
            "    @indented.md",
            "    @still-indented.md",
            "",
            "~~~~ python",
            "@tilde.md",
            "~~~",
            "~~~~",
            "- list item @listed.md",
            "  continued @continued.md",
        ]
    )
    assert includes(text) == ["/p/real.md", "/p/after-span.md", "/p/listed.md", "/p/continued.md"]


def test_an_unclosed_fence_hides_the_rest_of_the_file():
    assert includes("@a.md\n```\n@b.md") == ["/p/a.md"]


def test_only_the_text_around_html_comments_is_scanned():
    text = (
        "<!-- @hidden.md -->\n<!-- note --> @after-comment.md\n"
        "text <!-- @inline-hidden.md --> @tail.md\n<!-- open @x.md"
    )
    assert includes(text) == ["/p/after-comment.md", "/p/tail.md"]
    assert includes("inline <!-- unclosed @y.md") == ["/p/y.md"]


def test_duplicates_keep_their_first_position():
    assert includes("@b.md @a.md @b.md") == ["/p/b.md", "/p/a.md"]


def test_paths_frontmatter_splits_on_commas_outside_braces_and_expands_braces():
    assert split_paths_frontmatter("src/{a,b}/*.ts, docs/**") == ["src/a/*.ts", "src/b/*.ts", "docs/**"]
    assert split_paths_frontmatter(["x.md", ["y/{1,2}.md"], 3]) == ["x.md", "y/1.md", "y/2.md"]
    assert split_paths_frontmatter(42) == []


def test_double_star_matches_any_number_of_segments_and_dot_files():
    assert glob_matches("/a/b/.hidden/CLAUDE.md", ["**/CLAUDE.md"])
    assert glob_matches("CLAUDE.md", ["**/CLAUDE.md"])
    assert glob_matches("/a/legacy/x/y.md", ["**/legacy/**"])
    assert not glob_matches("/a/b/c.md", ["/a/*.md"])
    assert glob_matches("/a/b/c.md", ["/a/*/c.{md,txt}"])
    assert glob_matches("/a/b/c.md", ["/a/b/[abc].md"])
    assert not glob_matches("/a/b/d.md", ["/a/b/[!d].md"])


_segment = st.text(alphabet=string.ascii_letters + string.digits + "._-", min_size=1, max_size=8)


@given(st.lists(_segment, min_size=1, max_size=5))
def test_a_pattern_without_glob_characters_matches_exactly_itself(parts):
    path = "/" + "/".join(parts)
    assert glob_matches(path, [path])
    assert not glob_matches(path + "x", [path])
    assert glob_matches(path, ["**"])


@given(st.lists(_segment, min_size=2, max_size=4))
def test_brace_expansion_yields_one_pattern_per_alternative(options):
    assert expand_braces("x/{" + ",".join(options) + "}.md") == [f"x/{o}.md" for o in options]


@given(st.lists(_segment, min_size=1, max_size=4))
def test_an_at_path_inside_a_fence_is_never_an_include(parts):
    name = "/".join(parts)
    assert includes(f"```\n@{name}\n```") == []
