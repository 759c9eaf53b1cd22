"""The memory inspector: static pages served by ``epistream api`` under ``/ui``.

Plain HTML, CSS and JavaScript shipped as package data (no build step, nothing fetched from a CDN):
the page asks for an API key and calls the REST API with it, so it sees exactly what that key may
see through HTTP. See docs/ui.md.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"


def mount(app: FastAPI) -> None:
    """``/ui/`` serves ``static/`` (``index.html`` for the folder); ``/ui`` redirects there."""

    @app.get("/ui", include_in_schema=False)
    async def ui_root() -> RedirectResponse:
        return RedirectResponse("/ui/")

    app.mount("/ui", StaticFiles(directory=STATIC, html=True), name="ui")
