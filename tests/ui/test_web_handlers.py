"""The one rule every web app follows from a failure under a handler to the refusal it answers."""

from __future__ import annotations

import errno

import pytest
from starlette.exceptions import HTTPException
from starlette.requests import Request

from memdir.errors import LockTimeout, MemdirError, MemoryExists, MemoryFormatError, MemoryNotFound, SecretDetected
from memdir.web.handlers import WebError, web_error
from memdir.web.pages import FormTooLarge


def request(method: str = "GET", path: str = "/m/notes.md") -> Request:
    return Request({"type": "http", "method": method, "path": path, "query_string": b"", "headers": []})


@pytest.mark.parametrize(
    ("failure", "status"),
    [
        (MemoryNotFound("no memory notes.md"), 404),
        (MemoryExists("notes.md exists"), 409),
        (SecretDetected("a token on line 2", labels=["GitHub token"]), 422),
        (LockTimeout("the store is locked"), 503),
        (MemoryFormatError("no type"), 400),
    ],
)
def test_a_memdir_refusal_keeps_its_rule_and_message_under_its_status(failure: MemdirError, status: int) -> None:
    refused = web_error(request(), failure)
    assert (refused.status, refused.rule, refused.message) == (status, failure.rule, failure.message)


def test_a_name_too_long_for_the_file_system_says_to_choose_a_shorter_one() -> None:
    refused = web_error(request(), OSError(errno.ENAMETOOLONG, "File name too long"))
    assert refused.status == 400
    assert refused.message == "/m/notes.md: the name is too long for the file system; choose a shorter file name"


def test_the_routers_404_and_405_name_the_path_and_the_method() -> None:
    assert web_error(request(path="/nowhere"), HTTPException(404)).message == "no page at /nowhere"
    assert web_error(request("DELETE"), HTTPException(405)).message == "DELETE is not used here"


def test_a_form_over_the_limit_is_a_413_and_a_web_error_passes_through_unchanged() -> None:
    assert web_error(request(), FormTooLarge(2_000_000)).status == 413
    own = WebError(418, "short and stout", rule="teapot")
    assert web_error(request(), own) is own


def test_a_failure_the_rule_does_not_word_is_left_for_the_server_to_report() -> None:
    with pytest.raises(ZeroDivisionError):
        web_error(request(), ZeroDivisionError("a bug"))
