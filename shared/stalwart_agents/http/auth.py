"""Who a request is from: a principal, verified by one of four ways.

    NoAuth ........... one anonymous principal; only for a service that listens on loopback
    Jwt .............. bearer JWTs from an OpenID Connect provider, checked against its JWKS
    SharedSecret ..... bearer JWTs signed HS256 with a secret one team shares
    ApiGatewayClaims . on Lambda: the claims API Gateway's JWT authorizer verified

A principal is its issuer and subject, plus the few claims a policy reads.  It
comes from the token or from API Gateway's request context, never from a header
or a body field the client chose.  Tokens are verified by PyJWT, and only with
the algorithms configured: ``alg: none`` and a public key presented as an HMAC
secret are refused before any signature is computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..approvals.principal import ANONYMOUS, CLAIMS, Principal
from ..errors import Unauthorized

if TYPE_CHECKING:
    from starlette.requests import Request

    from .jwks import Keys

MAX_TOKEN = 16 * 1024
LEEWAY = 30


class Auth(Protocol):
    """One way of telling who a request is from; raises ``Unauthorized`` when it cannot."""

    name: str

    def principal(self, request: Request) -> Principal: ...


class NoAuth:
    """Everyone is one anonymous principal: right only where nobody else can reach the service."""

    name = "none"

    def principal(self, request: Request) -> Principal:
        return ANONYMOUS


class Jwt:
    """Bearer JWTs from an OpenID Connect provider.

    ``jwks_url`` defaults to what the issuer's discovery document names.  Keys are
    cached and fetched again once when a token names a key id the cache lacks (a
    rotation), at most once per ``Keys.REFETCH`` seconds, so unknown ids cannot make
    the service hammer the provider.
    """

    name = "jwt"

    def __init__(
        self,
        issuer: str,
        audience: str,
        *,
        jwks_url: str | None = None,
        algorithms: Sequence[str] = ("RS256", "ES256"),
        leeway: float = LEEWAY,
        keys: Keys | None = None,
    ) -> None:
        from .jwks import Keys

        if not issuer or not audience:
            raise ValueError("JWT authentication needs an issuer and an audience")
        unsafe = [a for a in algorithms if not a.startswith(("RS", "ES", "PS", "Ed"))]
        if unsafe:
            raise ValueError(
                f"a JWKS verifies public-key algorithms only, not {', '.join(unsafe)}; use SharedSecret for HS256"
            )
        self.issuer, self.audience, self.algorithms, self.leeway = issuer, audience, list(algorithms), leeway
        self.keys = keys or Keys(jwks_url or Keys.discover(issuer))

    def principal(self, request: Request) -> Principal:
        import jwt

        token = _bearer(request)
        try:
            key = self.keys.key(jwt.get_unverified_header(token).get("kid"))
        except jwt.PyJWTError:
            raise Unauthorized("the bearer token is not a JWT") from None
        return _verified(token, key, self.algorithms, self.issuer, self.audience, self.leeway)


class SharedSecret:
    """Bearer JWTs signed HS256 with a secret of at least 32 bytes, for this issuer and audience.

    Both are required: a secret shared with another service must not let that service's tokens act here.
    """

    name = "hs256"

    def __init__(self, secret: str | bytes, *, issuer: str, audience: str, leeway: float = LEEWAY) -> None:
        key = secret.encode() if isinstance(secret, str) else secret
        if len(key) < 32:
            raise ValueError("an HS256 secret must be at least 32 bytes (openssl rand -hex 32)")
        if not issuer or not audience:
            raise ValueError("HS256 authentication needs an issuer and an audience")
        self.key, self.issuer, self.audience, self.leeway = key, issuer, audience, leeway

    def principal(self, request: Request) -> Principal:
        return _verified(_bearer(request), self.key, ["HS256"], self.issuer, self.audience, self.leeway)


class ApiGatewayClaims:
    """On Lambda behind an HTTP API JWT authorizer: API Gateway verified the token; read what it verified.

    The claims come from the event's request context, which the client cannot write;
    an event without them (a route deployed without the authorizer) is refused.
    """

    name = "api-gateway"

    def principal(self, request: Request) -> Principal:
        event = request.scope.get("aws.event") or {}
        claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt", {}).get("claims")
        if not isinstance(claims, Mapping) or not claims.get("sub") or not claims.get("iss"):
            raise Unauthorized("this route needs a bearer token verified by the API's JWT authorizer")
        return _principal({name: _gateway_value(value) for name, value in claims.items()})


def bearer(request: Request) -> str:
    """The token of ``Authorization: Bearer <token>``, or ``""`` when the request carries none."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _bearer(request: Request) -> str:
    token = bearer(request)
    if not token:
        raise Unauthorized("this route needs Authorization: Bearer <token>", invalid_token=False)
    if len(token) > MAX_TOKEN:
        raise Unauthorized(f"the bearer token is longer than {MAX_TOKEN} characters")
    return token


def _verified(
    token: str, key: Any, algorithms: list[str], issuer: str | None, audience: str | None, leeway: float
) -> Principal:
    import jwt

    required = ["exp", "sub"] + (["iss"] if issuer else []) + (["aud"] if audience else [])
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=algorithms,
            issuer=issuer,
            audience=audience,
            leeway=leeway,
            options={"require": required, "verify_aud": audience is not None},
        )
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"the bearer token was refused: {_why(exc, required)}") from None
    return _principal(claims)


def _why(exc: Exception, required: list[str]) -> str:
    """A sentence for each refusal PyJWT can give, never the token nor its claims' values: a missing claim is named,
    with every claim a token here must carry, so whoever mints tokens learns what to add."""
    import jwt

    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"it has no {exc.claim!r} claim; a token here carries {', '.join(required)}"
    reasons = [
        (jwt.ExpiredSignatureError, "it has expired"),
        (jwt.ImmatureSignatureError, "it is not valid yet"),
        (jwt.InvalidIssuerError, "another issuer made it"),
        (jwt.InvalidAudienceError, "it is meant for another audience"),
        (jwt.InvalidAlgorithmError, "it is signed with an algorithm this service does not take"),
        (jwt.InvalidSignatureError, "its signature does not verify"),
        (jwt.DecodeError, "it is not a well-formed JWT"),
    ]
    return next((why for kind, why in reasons if isinstance(exc, kind)), "it does not verify")


def _principal(claims: Mapping[str, Any]) -> Principal:
    subject, issuer = claims.get("sub"), claims.get("iss", "")
    if not isinstance(subject, str) or not subject or not isinstance(issuer, str):
        raise Unauthorized("the bearer token names no subject")
    if issuer == ANONYMOUS.issuer:
        raise Unauthorized("the bearer token names an issuer this service keeps for itself")
    kept = {k: claims[k] for k in CLAIMS if k in claims}
    if "groups" not in kept and "cognito:groups" in claims:
        kept["groups"] = claims["cognito:groups"]
    return Principal(issuer=issuer, subject=subject, claims=kept)


def _gateway_value(value: Any) -> Any:
    """API Gateway hands a list claim over as ``"[a b c]"``; give it back as a list."""
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        return value[1:-1].split()
    return value
