def test_each_file_comes_before_its_includes_depth_first(tree):
    tree.write(tree.project / "CLAUDE.md", "root @a.md @b.md")
    tree.write(tree.project / "a.md", "a @sub/c.md")
    tree.write(tree.project / "sub" / "c.md", "c")
    tree.write(tree.project / "b.md", "b")
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md", "work/app/a.md", "work/app/sub/c.md", "work/app/b.md"]
    assert [f.included_from for f in chain.files] == [
        None,
        str(tree.project / "CLAUDE.md"),
        str(tree.project / "a.md"),
        str(tree.project / "CLAUDE.md"),
    ]
    assert chain.files[2].reason == f"included by {tree.project / 'a.md'}"
    assert {f.type.value for f in chain.files} == {"Project"}


def test_an_include_cycle_loads_every_file_once(tree):
    tree.write(tree.project / "CLAUDE.md", "root @a.md")
    tree.write(tree.project / "a.md", "a @b.md")
    tree.write(tree.project / "b.md", "b @a.md @CLAUDE.md")
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md", "work/app/a.md", "work/app/b.md"]
    assert sorted(s.path for s in chain.skipped if s.rule == "already-loaded") == [
        str(tree.project / "CLAUDE.md"),
        str(tree.project / "a.md"),
    ]


def test_includes_stop_at_depth_five(tree):
    tree.write(tree.project / "CLAUDE.md", "level 0 @l1.md")
    for level in range(1, 8):
        tree.write(tree.project / f"l{level}.md", f"level {level} @l{level + 1}.md")
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md"] + [f"work/app/l{n}.md" for n in range(1, 5)]
    assert [(s.rule, s.path) for s in chain.skipped] == [("depth", str(tree.project / "l5.md"))]


def test_missing_and_non_text_includes_are_skipped_quietly(tree):
    tree.write(tree.project / "CLAUDE.md", "@missing.md @logo.png @notes.txt @folder")
    (tree.project / "logo.png").write_bytes(b"\x89PNG\r\n")
    (tree.project / "folder").mkdir()
    tree.write(tree.project / "notes.txt", "plain text notes")
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md", "work/app/notes.txt"]
    assert [(s.rule, s.path) for s in chain.skipped] == [("not-text", str(tree.project / "logo.png"))]


def test_project_files_may_not_include_files_outside_the_working_directory(tree):
    outside = tree.write(tree.root / "outside" / "secrets.md", "outside text")
    tree.write(tree.project / "CLAUDE.md", f"@{outside} @../sibling.md")
    tree.write(tree.root / "work" / "sibling.md", "sibling")
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md"]
    assert {s.rule for s in chain.skipped} == {"external-include"}


def test_user_files_may_always_include_external_files(tree):
    outside = tree.write(tree.root / "outside" / "shared.md", "shared user notes")
    tree.write(tree.config_home / "CLAUDE.md", f"@{outside}")
    assert tree.paths(tree.load()) == ["home/.claude/CLAUDE.md", "outside/shared.md"]


def test_external_includes_follow_an_approval_in_local_settings_but_not_in_checked_in_settings(tree):
    outside = tree.write(tree.root / "outside" / "shared.md", "shared")
    tree.write(tree.project / "CLAUDE.md", f"@{outside}")
    tree.settings("project", {"hasClaudeMdExternalIncludesApproved": True})
    assert tree.paths(tree.load()) == ["work/app/CLAUDE.md"]
    tree.settings("local", {"hasClaudeMdExternalIncludesApproved": True})
    assert tree.paths(tree.load()) == ["work/app/CLAUDE.md", "outside/shared.md"]
    assert tree.paths(tree.load(include_external=False)) == ["work/app/CLAUDE.md"]


def test_a_home_relative_include_is_external_for_a_project(tree):
    tree.write(tree.home / "notes.md", "home notes")
    tree.write(tree.project / "CLAUDE.md", "@~/notes.md")
    assert tree.paths(tree.load(include_external=True)) == ["work/app/CLAUDE.md", "home/notes.md"]
    assert tree.paths(tree.load()) == ["work/app/CLAUDE.md"]


def test_included_files_inherit_the_type_and_are_subject_to_excludes(tree):
    tree.write(tree.project / "CLAUDE.local.md", "@drafts/todo.md @kept.md")
    tree.write(tree.project / "drafts" / "todo.md", "draft")
    tree.write(tree.project / "kept.md", "kept")
    tree.settings("local", {"claudeMdExcludes": ["**/drafts/**"]})
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.local.md", "work/app/kept.md"]
    assert chain.files[1].type.value == "Local"


def test_includes_in_code_are_not_followed_from_real_files(tree):
    tree.write(tree.project / "CLAUDE.md", "Run `@a.md`.\n\n```\n@b.md\n```\n<!-- @c.md -->\n")
    for name in "abc":
        tree.write(tree.project / f"{name}.md", name)
    chain = tree.load()
    assert tree.paths(chain) == ["work/app/CLAUDE.md"]
    assert chain.files[0].content == "Run `@a.md`.\n\n```\n@b.md\n```\n"


def test_a_symlink_inside_the_project_cannot_include_a_file_outside_it(tree):
    import os

    outside = tree.write(tree.root / "outside" / "credentials", "aws_secret_access_key = x")
    os.symlink(outside, tree.project / "creds")
    os.symlink(outside.parent, tree.project / "linked")
    tree.write(tree.project / "CLAUDE.md", "root @creds @linked/credentials")
    chain = tree.load(include_external=False)
    assert tree.paths(chain) == ["work/app/CLAUDE.md"]
    assert [s.rule for s in chain.skipped] == ["external-include", "external-include"]
    assert tree.paths(tree.load(include_external=True))[1:] == ["work/app/creds"]


def test_an_include_of_a_device_or_pipe_is_skipped_without_blocking(tree):
    import os

    os.symlink("/dev/zero", tree.project / "zero")
    os.mkfifo(tree.project / "pipe")
    tree.write(tree.project / "CLAUDE.md", "root @zero @pipe")
    chain = tree.load(include_external=True)
    assert tree.paths(chain) == ["work/app/CLAUDE.md"]


def test_an_oversized_include_is_skipped(tree):
    from memdir.instructions.files import MAX_INSTRUCTION_FILE_BYTES

    tree.write(tree.project / "big.md", "x" * (MAX_INSTRUCTION_FILE_BYTES + 1))
    tree.write(tree.project / "CLAUDE.md", "root @big.md")
    assert tree.paths(tree.load()) == ["work/app/CLAUDE.md"]
