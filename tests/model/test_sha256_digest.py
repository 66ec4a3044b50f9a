import hashlib

from memdir.model.sha256 import sha256_hex
from memdir.store.index_db import index_path


def test_the_builtin_sha256_gives_hashlibs_digests():
    for data in (b"", b"abc", "/tmp/p/\u00e9t\u00e9/memory".encode(), bytes(range(256)) * 300):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_the_index_path_is_where_earlier_releases_put_it(tmp_path):
    path = index_path(str(tmp_path / "mem"), str(tmp_path / "home"))
    root = str((tmp_path / "mem").resolve())
    assert path == str(
        tmp_path / "home" / "memdir" / "index" / f"{hashlib.sha256(root.encode()).hexdigest()[:16]}.sqlite3"
    )
