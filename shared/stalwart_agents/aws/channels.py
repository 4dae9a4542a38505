"""The channels agent.yaml names (Slack, mail), as the stack's functions announce and settle on them.

agent.yaml names where each channel's secrets are read from (``{env: SLACK_BOT_TOKEN}``),
and the stack gives their ARNs (``SlackBotTokenArn``, ...), never their values.  A
function that uses a channel reads each secret once, at cold start, and hands it to the
channel under the very name agent.yaml gives: nothing else in the function's environment
changes, and the stack need not be told the names.  A function is given only the
secrets it uses: the fan-out and the clock post, so they read the bot token and the SMTP
credentials; only the Slack function verifies clicks, so only it reads the signing
secret.

Without an ARN, a secret is read from the environment as agent.yaml says (the tests, and
``stalwart serve``); a channel agent.yaml names whose secret the stack was not given
stops the cold start with a sentence naming the parameter to set.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .handlers import LinkSettings
from .secrets import read_secret

if TYPE_CHECKING:
    from ..approvals.announce import Notify
    from ..approvals.webhook import Webhook
    from ..channels import Channels
    from ..config import ChannelsConfig, FromEnv
    from ..desk import Desk

__all__ = ["SECRETS", "announcing", "channel_environ", "channels_from_environ"]

SECRETS = {
    "bot_token": ("STALWART_SLACK_BOT_TOKEN_ARN", "SlackBotTokenArn"),
    "signing_secret": ("STALWART_SLACK_SIGNING_SECRET_ARN", "SlackSigningSecretArn"),
    "smtp_password": ("STALWART_SMTP_PASSWORD_ARN", "SmtpPasswordArn"),
}
"""Each channel secret: the variable holding its ARN, and the stack's parameter that gives it."""
SMTP_USERNAME = "STALWART_SMTP_USERNAME"
"""The SMTP username (the stack's SmtpUsername): no secret, so its value, not an ARN."""


def channel_environ(config: ChannelsConfig, environ: Mapping[str, str], *, verifies: bool = False) -> dict[str, str]:
    """``environ`` with each secret of the channels ``config`` names put under the variable agent.yaml reads it from.

    ``verifies``: the function checks Slack's signatures (the Slack function); any other is handed a signing secret
    that nobody holds, since it verifies nothing and must not be able to sign as Slack."""
    given = dict(environ)
    if config.slack is not None:
        _put(given, environ, config.slack.bot_token, "bot_token")
        if verifies:
            _put(given, environ, config.slack.signing_secret, "signing_secret")
        else:
            given[config.slack.signing_secret.env] = secrets.token_hex(32)
    smtp = config.mail.smtp if config.mail is not None else None
    if smtp is not None and smtp.password is not None:
        _put(given, environ, smtp.password, "smtp_password")
    if smtp is not None and smtp.username is not None and environ.get(SMTP_USERNAME):
        given[smtp.username.env] = environ[SMTP_USERNAME]
    if smtp is not None and smtp.username is not None and not given.get(smtp.username.env):
        raise RuntimeError(
            f"agent.yaml's mail channel signs in to {smtp.host} as {{env: {smtp.username.env}}}:"
            " deploy with SmtpUsername (and SmtpPasswordArn)"
        )
    return given


def _put(given: dict[str, str], environ: Mapping[str, str], named: FromEnv, secret: str) -> None:
    variable, parameter = SECRETS[secret]
    arn = environ.get(variable)
    if arn:
        given[named.env] = read_secret(arn, variable)
    elif not environ.get(named.env):
        raise RuntimeError(
            f"agent.yaml's channels read {{env: {named.env}}}, which this function was not given:"
            f" deploy with {parameter} (the ARN of the secret that holds it)"
        )


def channels_from_environ(
    desk: Desk, environ: Mapping[str, str], webhook: Webhook | None = None, *, verifies: bool = False
) -> Channels | None:
    """The channels ``desk``'s agent.yaml names and the stack's webhook, as one ``on_interrupt`` (None for none):
    each pause's card as the desk's rules make it, signed links where the stack has a public URL."""
    from ..approvals.card import card_of
    from ..approvals.links import Links
    from ..channels import channels_of

    links = LinkSettings.from_environ(environ)
    minted = None if links.public_url is None else Links(desk.storage, links.public_url, hours=links.hours)
    return channels_of(
        desk.config.channels,
        channel_environ(desk.config.channels, environ, verifies=verifies),
        lambda pause: card_of(pause, desk.verdict(pause, None), None, edits=False),
        None if minted is None else minted.mint,
        webhook,
    )


def announcing(desk: Desk, environ: Mapping[str, str]) -> Notify | None:
    """What a function that announces pauses (the fan-out new ones, the clock reminders) posts with: the webhook
    (carrying the card, as the service's does) and the channels agent.yaml names together; None for neither."""
    from ..approvals.card import card_of
    from .handlers import webhook_from_environ

    webhook = webhook_from_environ(environ, desk.storage)
    if webhook is not None and webhook.cards is None:
        webhook.cards = lambda pause: card_of(pause, desk.verdict(pause, None), None)
    channels = channels_from_environ(desk, environ)
    if channels is not None and [channel.name for channel in channels.channels] == ["webhook"]:
        return webhook  # the webhook alone: posted as before, with nothing to settle
    return channels if channels is not None else webhook
