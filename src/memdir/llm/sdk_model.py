"""What the SDK-backed adapters share: client lifetime and the sync/async call plumbing.

Each adapter describes one exchange as a generator of SDK keyword arguments (``_exchange``);
this base runs it with the SDK's sync client (kept for the model's lifetime) or a fresh async
client per call, because an async client's connection pool belongs to the event loop that made it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator
from types import TracebackType
from typing import Any, Self

from memdir.llm.base import ChatRequest, Completion, check_model_call_allowed, map_sdk_error
from memdir.llm.steps import arun_steps, run_steps

__all__ = ["SdkChatModel"]

Kwargs = dict[str, Any]


class SdkChatModel(ABC):
    """Base of the adapters; subclasses set the client class names and the create endpoint."""

    spec: str
    base_url: str | None
    _sdk: Any
    _client_args: Kwargs
    _client: Any = None
    _sync_client: str  # attribute of the SDK module, e.g. "Anthropic"
    _async_client: str  # e.g. "AsyncAnthropic"
    _key_env: str  # the env var holding the API key, named in auth errors

    @staticmethod
    @abstractmethod
    def _endpoint(client: Any) -> Callable[..., Any]:
        """The SDK method that creates a message on ``client``."""

    @abstractmethod
    def _exchange(self, request: ChatRequest) -> Generator[Kwargs, object, Completion]:
        """One request, with the adapter's fallbacks, as a generator of SDK keyword arguments."""

    def _check(self, request: ChatRequest, outcome: object) -> Any:
        """The SDK's response, or the SDK's exception turned into memdir's error for this provider."""
        if isinstance(outcome, BaseException):
            raise map_sdk_error(
                self._sdk,
                outcome,
                spec=self.spec,
                key_env=self._key_env,
                base_url=self.base_url,
                timeout=request.timeout,
            ) from outcome
        return outcome

    def complete(self, request: ChatRequest) -> Completion:
        check_model_call_allowed(self.spec, self.base_url)
        if self._client is None:
            self._client = getattr(self._sdk, self._sync_client)(**self._client_args)
        create = self._endpoint(self._client)
        exchange = self._exchange(request)
        return run_steps(exchange, lambda kwargs: create(**kwargs), catch=(self._sdk.APIError,), deliver="send")

    async def acomplete(self, request: ChatRequest) -> Completion:
        check_model_call_allowed(self.spec, self.base_url)
        async with getattr(self._sdk, self._async_client)(**self._client_args) as client:
            create = self._endpoint(client)

            async def call(kwargs: Kwargs) -> object:
                return await create(**kwargs)

            exchange = self._exchange(request)
            return await arun_steps(exchange, call, catch=(self._sdk.APIError,), deliver="send")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
