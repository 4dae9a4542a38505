"""A function's secrets, read once at cold start from the ARNs its environment names.

template.yaml gives a function the ARN of each secret it needs, never the value,
so a value shows in no console, template or ``get-function-configuration``.  An ARN
names a Secrets Manager secret (its SecretString) or an SSM SecureString parameter
(decrypted); the client is made in the ARN's own region.  For local use and the
tests, the plain variable (``QLS_OPERATOR_TOKEN``, ...) still works where no ARN is set.

Powertools' parameters utility is not used: it earns its keep by caching values
fetched on every invocation, and these are fetched once, before the first.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SecretUnreadable", "read_secret", "secret_from_environ"]


class SecretUnreadable(RuntimeError):
    """A secret the function's environment names could not be read: the cold start stops here."""


def secret_from_environ(environ: Mapping[str, str], plain: str, arn_variable: str) -> str | None:
    """The secret named by ``arn_variable``'s ARN if that is set, else ``plain``'s value, else None."""
    arn = environ.get(arn_variable)
    if arn:
        return read_secret(arn, arn_variable)
    return environ.get(plain) or None


def read_secret(arn: str, variable: str) -> str:
    """The value behind ``arn``; a :class:`SecretUnreadable` naming ``variable`` (never a value) when there is none."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    service, region = _service_and_region(arn, variable)
    try:
        client = boto3.client(service, region_name=region)
        if service == "ssm":
            value = client.get_parameter(Name=arn, WithDecryption=True)["Parameter"]["Value"]
        else:
            value = client.get_secret_value(SecretId=arn).get("SecretString")
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "an error")
        raise SecretUnreadable(f"{variable} names {arn}, which this function could not read: {code}") from None
    except BotoCoreError as exc:
        raise SecretUnreadable(f"{variable} names {arn}, which could not be reached: {type(exc).__name__}") from None
    if not isinstance(value, str) or not value:
        raise SecretUnreadable(f"{variable} names {arn}, which holds no text (a SecretString or a parameter's value)")
    return value


def _service_and_region(arn: str, variable: str) -> tuple[str, str]:
    """("secretsmanager" or "ssm", region) of a secret's or SecureString parameter's ARN."""
    parts = arn.split(":", 5)
    if len(parts) == 6 and parts[0] == "arn" and parts[3]:
        if parts[2] == "secretsmanager" and parts[5].startswith("secret:"):
            return "secretsmanager", parts[3]
        if parts[2] == "ssm" and parts[5].startswith("parameter/"):
            return "ssm", parts[3]
    raise SecretUnreadable(
        f"{variable} is not the ARN of a Secrets Manager secret (arn:aws:secretsmanager:...:secret:...)"
        " or an SSM parameter (arn:aws:ssm:...:parameter/...); what it holds is not shown, in case it is the secret"
    )
