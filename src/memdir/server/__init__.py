"""The team-memory sync server (extra ``server``; PostgreSQL storage needs extra ``postgres``).

:func:`memdir.server.app.create_app` builds the ASGI app over a storage from
:func:`memdir.server.storage.open_storage`. Nothing here imports Starlette until the app is built.
"""

from __future__ import annotations

__all__: list[str] = []
