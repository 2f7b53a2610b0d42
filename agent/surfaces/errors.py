"""The one mapping from an error raised under a surface to what its client is told: an HTTP status and
one line.

Every surface answers with it - ``caim serve`` (in OpenAI's error shape), ``caim ui`` (an error page),
``caim mcp`` (a tool error of the same line), the LangGraph deployment's auth handlers and HTTP app,
and the FastAPI example; the CLI prints the same line (exit code 2).

=====================================================  ======  ======================================
error                                                  status  line
=====================================================  ======  ======================================
``QuotaError`` (a write past the user's limits)        413     the error's line
``InputError`` carrying its own ``status``             that    the error's line
(``RunRefused``)
``InputError`` (what the client sent cannot be used)   400     the error's line
an argument that breaks the endpoint's schema          400     ``caim.core.errors.argument_error``
``EndpointError`` (the model failed)                   502     the error's line
``EndpointError`` that timed out, ``TimeoutError``     504     the error's line
any other ``CaimError`` (storage, configuration)       503     the error's line
anything else (a fault of the server)                  500     ``internal server error (<type>)``
=====================================================  ======  ======================================

>>> from caim.core.errors import EndpointError, InputError, QuotaError, StorageError
>>> [http_status(e) for e in (QuotaError("full"), InputError("bad"), EndpointError("down"), StorageError("ro"))]
[413, 400, 502, 503]
>>> error_line(KeyError("x")), error_line(InputError("too\\nlong"))
('internal server error (KeyError)', 'too long')
"""

from __future__ import annotations

from caim.core.errors import CaimError, EndpointError, InputError, QuotaError

#: The status of a request whose arguments break the endpoint's schema (``argument_error``'s line).
ARGUMENT_STATUS = 400


def timed_out(exc: BaseException) -> bool:
    """Whether a fault was a timeout: a ``TimeoutError``, a model endpoint's, or a surface's deadline."""
    if isinstance(exc, TimeoutError) or "did not answer within" in str(exc):
        return True
    seen = exc.__context__
    while seen is not None:
        if isinstance(seen, TimeoutError) or "Timeout" in type(seen).__name__:
            return True
        seen = seen.__context__
    return False


def http_status(exc: BaseException) -> int:
    """The HTTP status of ``exc`` (the table above)."""
    if isinstance(exc, QuotaError):
        return 413
    if isinstance(exc, InputError):
        own = getattr(exc, "status", None)
        return own if isinstance(own, int) and 400 <= own < 500 else 400
    if isinstance(exc, TimeoutError) or (isinstance(exc, EndpointError) and timed_out(exc)):
        return 504
    if isinstance(exc, EndpointError):
        return 502
    if isinstance(exc, CaimError):
        return 503
    return 500


def error_line(exc: BaseException) -> str:
    """What the client is told of ``exc``: its one line for a caim error or a timeout; for anything else
    only its type (the rest goes to the server's log)."""
    if isinstance(exc, CaimError | TimeoutError):
        return " ".join(str(exc).split()) or type(exc).__name__
    return f"internal server error ({type(exc).__name__})"
