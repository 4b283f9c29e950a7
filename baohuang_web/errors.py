"""Errors a request can meet, each with its HTTP status and a message that says what was
wrong and what is allowed. The app turns them into `{"error": message}` responses; nothing
raises one after it has changed a game."""

from __future__ import annotations


class WebError(Exception):
    """A request the server refuses; `status` is the HTTP status code."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(WebError):
    status = 400


class Forbidden(WebError):
    status = 403


class NotFound(WebError):
    status = 404


class Conflict(WebError):
    """Well formed, but not now (not your turn, the game is over or still going)."""

    status = 409


class TooLarge(WebError):
    status = 413
