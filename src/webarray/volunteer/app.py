"""The volunteer server's HTTP face (FastAPI): the JSON endpoints over ``service``, the
worker page and dashboard, and the files a page needs (the JS library, Pyodide, the
wheels, the objective and its data), every response cross-origin isolated.

Endpoints (token: the one the lease handed out; in the JSON body, or in the
``X-Trial-Token`` header for the binary checkpoint):

    POST /api/lease                     {worker}               -> a trial, "wait" or "done"
    POST /api/trials/{n}/heartbeat      {token}                -> {running, step, value}
    POST /api/trials/{n}/report         {token, step, value}   -> {should_prune}
    POST /api/trials/{n}/tell           {token, state, value?, user_attrs?, error?}
    POST /api/trials/{n}/release        {token}                the page closes: re-queue now
    PUT  /api/trials/{n}/checkpoint     bytes                  (X-Checkpoint-Step: its step)
    GET  /api/trials/{n}/checkpoint                            the latest, or the retried one's
    GET  /api/study                     the trials, for the dashboard
    GET  /api/config                    what the page loads

Malformed input is a 422, an unknown trial a 404, a wrong token a 403, a trial that is not
running (told twice, or re-queued) a 409, a body over the limit a 413; none changes
anything. Request bodies must say their length (411 otherwise): every browser does.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ..browser.server import CONTENT_TYPES, ISOLATION_HEADERS
from .service import ApiError, VolunteerStudy

STATIC = Path(__file__).with_name("static")
JSON_LIMIT = 64 << 10  # bytes of a JSON request body

for _suffix, _type in CONTENT_TYPES.items():  # StaticFiles guesses by mimetypes
    mimetypes.add_type(_type.split(";")[0], _suffix)


@dataclass
class Assets:
    """Folders and files a worker page loads, by URL prefix (None: the API alone, for tests)."""

    webarray_js: Path
    pyodide: Path
    wheels: list[Path] = field(default_factory=list)


# -- request bodies: strict types, no extra fields ----------------------------------------------

class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LeaseIn(_Body):
    worker: str = Field("", max_length=64)


class TokenIn(_Body):
    token: str = Field(min_length=1, max_length=128)


class ReportIn(TokenIn):
    step: int = Field(ge=0, le=2**31 - 1)
    value: float = Field(allow_inf_nan=False)


class TellIn(TokenIn):
    state: Literal["complete", "pruned", "fail"]
    value: float | None = Field(None, allow_inf_nan=False)
    user_attrs: dict[Annotated[str, Field(max_length=64)], JsonValue] = Field(default_factory=dict)
    error: str | None = Field(None, max_length=100_000)


class _Isolation:
    """ASGI middleware: COOP/COEP/CORP on every response (SharedArrayBuffer needs them), and
    a request body must state a length within the limit before the app reads it."""

    def __init__(self, app, checkpoint_limit: int):
        self.app = app
        self.checkpoint_limit = checkpoint_limit
        self.headers = [(k.lower().encode(), v.encode()) for k, v in ISOLATION_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_isolated(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        if scope["method"] in ("POST", "PUT", "PATCH"):
            limit = self.checkpoint_limit if scope["path"].endswith("/checkpoint") else JSON_LIMIT
            length = dict(scope["headers"]).get(b"content-length")
            if length is None or not length.isdigit():
                return await _json(411, "the request must carry a Content-Length")(scope, receive, send_isolated)
            if int(length) > limit:
                return await _json(413, f"a body of {int(length)} bytes is over the limit of {limit}")(
                    scope, receive, send_isolated)
        await self.app(scope, receive, send_isolated)


def _json(status: int, detail: Any) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def create_app(study: VolunteerStudy, assets: Assets | None = None) -> FastAPI:
    spec = study.spec
    app = FastAPI(title=f"webarray volunteer: {spec.name}", docs_url=None, redoc_url=None, openapi_url=None)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, e: ApiError) -> JSONResponse:
        return JSONResponse({"detail": e.message, **e.extra}, status_code=e.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        return _json(422, [{"loc": err["loc"], "msg": err["msg"]} for err in e.errors()])

    # -- the API --------------------------------------------------------------------------------

    @app.post("/api/lease")
    def lease(body: LeaseIn) -> dict:
        return study.lease(body.worker)

    @app.post("/api/trials/{number}/heartbeat")
    def heartbeat(number: int, body: TokenIn) -> dict:
        return study.heartbeat(number, body.token)

    @app.post("/api/trials/{number}/report")
    def report(number: int, body: ReportIn) -> dict:
        return study.report(number, body.token, body.step, body.value)

    @app.post("/api/trials/{number}/tell")
    def tell(number: int, body: TellIn) -> dict:
        return study.tell(number, body.token, body.state, body.value, body.user_attrs, body.error)

    @app.post("/api/trials/{number}/release")
    def release(number: int, body: TokenIn) -> dict:
        return study.release(number, body.token)

    @app.put("/api/trials/{number}/checkpoint")
    async def put_checkpoint(
        number: int, request: Request,
        x_trial_token: Annotated[str, Header(min_length=1, max_length=128)],
        x_checkpoint_step: Annotated[int | None, Header(ge=0, le=2**31 - 1)] = None,
    ) -> dict:
        data = await request.body()
        return await run_in_threadpool(study.put_checkpoint, number, x_trial_token, data, x_checkpoint_step)

    @app.get("/api/trials/{number}/checkpoint")
    def get_checkpoint(number: int, x_trial_token: Annotated[str, Header(min_length=1, max_length=128)]) -> Response:
        data, step = study.get_checkpoint(number, x_trial_token)
        headers = {"X-Checkpoint-Step": str(step)} if step is not None else {}
        return Response(data, media_type="application/octet-stream", headers=headers)

    @app.get("/api/study")
    def summary() -> dict:
        return study.summary()

    wheels = {p.name: p for p in ([] if assets is None else assets.wheels) + list(spec.wheels)}
    study_files = {Path(p).name: Path(p) for p in [spec.objective, *spec.files]}

    @app.get("/api/config")
    def config() -> dict:
        return {
            "study": spec.name,
            "direction": spec.direction,
            "n_trials": spec.n_trials,
            "heartbeat_interval": spec.heartbeat_interval,
            "wheels": [f"/wheels/{name}" for name in wheels],
            "objective": Path(spec.objective).name,
            "files": [{"url": f"/study/{name}", "path": name} for name in study_files],
            "pyodide_packages": spec.pyodide_packages,
            "settings": spec.settings,
        }

    # -- pages and files ------------------------------------------------------------------------

    def _file(table: dict[str, Path], name: str) -> FileResponse:
        if name not in table:
            raise ApiError(404, f"no such file: {name}")
        return FileResponse(table[name], headers={"Cache-Control": "no-cache"})

    @app.get("/wheels/{name}")
    def wheel(name: str) -> FileResponse:
        return _file(wheels, name)

    @app.get("/study/{name}")
    def study_file(name: str) -> FileResponse:
        return _file(study_files, name)

    @app.get("/")
    def worker_page() -> FileResponse:
        return FileResponse(STATIC / "worker.html", headers={"Cache-Control": "no-cache"})

    @app.get("/dashboard")
    def dashboard_page() -> FileResponse:
        return FileResponse(STATIC / "dashboard.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if assets is not None:
        app.mount("/webarray", StaticFiles(directory=assets.webarray_js.resolve()), name="webarray")
        app.mount("/pyodide", StaticFiles(directory=assets.pyodide.resolve()), name="pyodide")
    return _Isolation(app, spec.checkpoint_limit)
