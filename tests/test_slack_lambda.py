"""Slack and mail on the Lambda stack: each function template.yaml deploys with SlackBotTokenArn, SlackSigningSecretArn,
SmtpUsername and SmtpPasswordArn, cold-started with the environment the template gives it against DynamoDB and
Secrets Manager (moto's server), Slack's Web API on 127.0.0.1 (``slack_api.py``) and an SMTP server on 127.0.0.1
(aiosmtpd), every AWS request a function sends checked against its policy.

The fan-out posts a new pause to Slack and mails it; the Slack function checks a click's signature, hands it to itself
(the asynchronous invocation is kept here, as Lambda would queue it) and answers 200 before anything is done; the
invocation handed on answers the pause through its claim, once; the fan-out settles a message once its pause is
decided, wherever it was answered from."""

import json
import uuid

import boto3
import pytest
import yaml

from .conftest import SHOP, present
from .server import serving
from .slack_api import BOT_TOKEN, SIGNING_SECRET, FakeSlack, buttons, interaction, slack_signed, words
from .test_lambda import (
    ALICE,
    FINANCE,
    PUBLIC_URL,
    Deployed,
    approval,
    paused,
    secrets,  # noqa: F401 (a fixture)
    stack,  # noqa: F401 (a fixture)
    storage_url,  # noqa: F401 (a fixture)
    stream_records,
    waiting,
)
from .test_lambda import filtered as filtered_for
from .test_mail import LOGIN, Inbox, smtp_server
from .test_template import TEMPLATE, CloudFormationLoader, fan_out

TEMPLATE_DATA = yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)

pytestmark = pytest.mark.timeout(120)

CHANNEL, FIONA, MALLORY = "C0OPS", "U0FIONA", "U0MALLORY"
PEOPLE = {
    FIONA: {"name": "fiona", "real_name": "Fiona Walsh", "email": "fiona@shop.example"},
    MALLORY: {"name": "mallory", "real_name": "Mallory Lane", "email": "mallory@shop.example"},
}


@pytest.fixture
def slack_api():
    """Slack's Web API on 127.0.0.1: (the fake, its address)."""
    fake = FakeSlack(PEOPLE)
    with serving(fake.app()) as api:
        yield fake, api


@pytest.fixture
def fake_slack(slack_api):
    return slack_api[0]


@pytest.fixture
def shop_on_slack(tmp_path, slack_api):
    """The shop, finance answering every charge, with Slack as its channel (Fiona in finance, Mallory not)."""
    config = tmp_path / "agent.yaml"
    text = SHOP.read_text().replace("tools: tools.py", f"tools: {SHOP.parent / 'tools.py'}")
    text = text.replace("    check:\n", FINANCE.lstrip("\n") + "    check:\n", 1)
    config.write_text(
        text + "channels:\n"
        "  slack:\n"
        "    bot_token: {env: SLACK_BOT_TOKEN}\n"
        "    signing_secret: {env: SLACK_SIGNING_SECRET}\n"
        f"    channel: {CHANNEL}\n"
        f"    api_url: {slack_api[1]}/api/\n"
        f"    groups: {{finance: [{FIONA}]}}\n"
    )
    return config


@pytest.fixture
def slack_stack(stack, moto_endpoint):  # noqa: F811
    """The stack's parameters with Slack: the bot token in Secrets Manager, the signing secret in SSM."""
    name = uuid.uuid4().hex
    manager = boto3.client("secretsmanager", region_name="us-east-1", endpoint_url=moto_endpoint)
    ssm = boto3.client("ssm", region_name="us-east-1", endpoint_url=moto_endpoint)
    token = manager.create_secret(Name=f"stalwart/{name}/slack-bot", SecretString=BOT_TOKEN)["ARN"]
    ssm.put_parameter(Name=f"/stalwart/{name}/slack-signing", Value=SIGNING_SECRET, Type="SecureString")
    signing = ssm.get_parameter(Name=f"/stalwart/{name}/slack-signing")["Parameter"]["ARN"]
    return stack | {"SlackBotTokenArn": token, "SlackSigningSecretArn": signing}


class OnSlack(Deployed):
    """The stack deployed with Slack, and the table's stream as far as the fan-out has read it."""

    def __init__(self, parameters, storage_url, monkeypatch, config):  # noqa: F811
        super().__init__(TEMPLATE_DATA, parameters, storage_url, monkeypatch, config=config)
        self.storage_url, self.seen = storage_url, 0

    def fan_out(self):
        """Run the fan-out on what the stream brought since it last ran, as the template's filters let it through."""
        records = stream_records(self.storage_url)
        new, self.seen = records[self.seen :], len(records)
        batch = {"Records": json.loads(json.dumps(filtered_for(self.template, new, self.parameters), default=str))}
        assert self.invoke(fan_out(self.template), batch) == {"batchItemFailures": []}


@pytest.fixture
def on_slack(slack_stack, storage_url, monkeypatch, ledger, shop_on_slack):  # noqa: F811
    deployed = OnSlack(slack_stack, storage_url, monkeypatch, shop_on_slack)
    yield deployed
    assert deployed.refused_by_iam() == []


def click(deployed, message, decision, user, headers=slack_signed):
    body = interaction(message, decision, user, PEOPLE[user]["name"])
    return body, deployed.call("POST", "/slack/actions", raw=body, headers=headers(body))


def told(fake_slack, user):
    return [m["text"] for m in fake_slack.made("chat.postEphemeral") if m["user"] == user]


def test_a_signed_click_is_answered_at_once_and_taken_once_by_the_invocation_it_was_handed_to(
    on_slack, fake_slack, ledger
):
    pause = paused(on_slack, "u-17")
    on_slack.fan_out()
    message = fake_slack.message()
    assert message["channel"] == CHANNEL and {b["action_id"] for b in buttons(message)} >= {"approve"}
    assert [op for service, op, _ in on_slack.requests[fan_out(TEMPLATE_DATA)] if service == "secretsmanager"] == [
        "GetSecretValue"  # the bot token; the fan-out never reads the signing secret
    ]

    sent_before = len(on_slack.requests["SlackFunction"])
    _, (status, _, text) = click(on_slack, message, "approve", FIONA)
    assert (status, text) == (200, "")
    # Slack was answered having had nothing done: no table read, no Slack call, only the hand-off
    assert [(s, op) for s, op, _ in on_slack.requests["SlackFunction"][sent_before:]] == [("lambda", "Invoke")]
    assert ledger("charge") == [] and fake_slack.made("users.info") == []
    [handed] = on_slack.handed["SlackFunction"]

    taken = on_slack.invoke("SlackFunction", handed)
    assert taken == {"taken": pause["id"]}
    assert len(ledger("charge")) == 1 and waiting(on_slack, "u-17") == []
    settled = fake_slack.message()
    assert "Fiona Walsh" in " ".join(words(settled["blocks"])) and buttons(settled) == []

    on_slack.invoke("SlackFunction", handed)  # Lambda delivering the same event twice: the claim takes it once
    assert len(ledger("charge")) == 1
    assert told(fake_slack, FIONA)  # and the second time Fiona is told it was answered already
    assert fake_slack.message()["blocks"] == settled["blocks"]  # the record of the decision stands


def test_a_forged_a_replayed_or_a_refused_click_hands_nothing_on_or_changes_nothing(on_slack, fake_slack, ledger):
    paused(on_slack, "u-17")
    on_slack.fan_out()
    message = fake_slack.message()

    def forged(body):
        return slack_signed(body, secret="not-the-signing-secret")

    _, (status, _, text) = click(on_slack, message, "approve", FIONA, headers=forged)
    assert status == 401 and json.loads(text)["error"] == "bad_signature"
    _, (status, _, _) = click(on_slack, message, "approve", FIONA, headers=lambda body: slack_signed(body, timestamp=1))
    assert status == 401
    body = interaction(message, "approve", MALLORY, "mallory")
    signed = slack_signed(body)
    assert on_slack.call("POST", "/slack/actions", raw=body, headers=signed)[0] == 200
    assert on_slack.call("POST", "/slack/actions", raw=body, headers=signed)[0] == 401  # the same request again
    assert len(on_slack.handed["SlackFunction"]) == 1  # the forged, the stale and the replayed were handed nowhere

    on_slack.invoke("SlackFunction", on_slack.handed["SlackFunction"][0])  # Mallory is not in finance
    assert ledger("charge") == [] and len(waiting(on_slack, "u-17")) == 1
    [why] = told(fake_slack, MALLORY)
    assert "approver rules" in why
    assert buttons(fake_slack.message())  # the message still asks


def test_the_fan_out_settles_the_message_of_a_pause_answered_elsewhere(on_slack, fake_slack, ledger):
    """Alice answers in the app (the resume function): the pause's change reaches the fan-out, which settles the
    message it posted; a change while the pause was open (its delivery noted) settles nothing."""
    pause = paused(on_slack, "u-17")
    on_slack.fan_out()
    on_slack.fan_out()  # the delivery noted on the pause: the filters let nothing through
    assert fake_slack.made("chat.update") == []
    assert buttons(fake_slack.message())

    status, _, text = on_slack.call("POST", "/threads/u-17/resume", approval(pause), claims=ALICE)
    assert status == 200, text
    on_slack.fan_out()
    [update] = fake_slack.made("chat.update")
    assert update["channel"] == CHANNEL and buttons(fake_slack.message()) == []
    assert f"{ALICE['name']} approved" in " ".join(words(fake_slack.message()["blocks"]))  # by name, not by sub
    assert len(ledger("charge")) == 1


# ------------------------------------------------------------------ mail, from the fan-out


@pytest.fixture
def mail_stack(stack, moto_endpoint):  # noqa: F811
    """The stack's parameters with mail (and signed links): the SMTP password in Secrets Manager."""
    manager = boto3.client("secretsmanager", region_name="us-east-1", endpoint_url=moto_endpoint)
    password = manager.create_secret(Name=f"stalwart/{uuid.uuid4().hex}/smtp", SecretString=LOGIN["SMTP_PASSWORD"])
    return stack | {"SmtpUsername": LOGIN["SMTP_USER"], "SmtpPasswordArn": password["ARN"], "PublicUrl": PUBLIC_URL}


def test_the_fan_out_mails_each_new_pause_with_its_links_signed_in_with_the_stacks_credentials(
    mail_stack,
    storage_url,  # noqa: F811
    monkeypatch,
    ledger,
    tmp_path,
):
    inbox = Inbox()
    with smtp_server(inbox=inbox, authenticator=inbox.authenticate, auth_require_tls=False) as (_, port):
        config = tmp_path / "agent.yaml"
        config.write_text(
            SHOP.read_text().replace("tools: tools.py", f"tools: {SHOP.parent / 'tools.py'}") + "channels:\n"
            "  mail:\n"
            f"    smtp: {{host: 127.0.0.1, port: {port}, starttls: false, timeout: 5,"
            " username: {env: SMTP_USER}, password: {env: SMTP_PASSWORD}}\n"
            "    sender: Approvals <approvals@shop.example>\n"
            "    to: fiona@shop.example\n"
        )
        deployed = OnSlack(mail_stack, storage_url, monkeypatch, config)
        assert fan_out(TEMPLATE_DATA) in deployed.handlers  # mail alone deploys the fan-out
        pause = paused(deployed, "u-17")
        deployed.fan_out()
        deployed.fan_out()  # Lambda retrying the batch: mailed once
    [(to, message)] = inbox.got
    assert to == ["fiona@shop.example"] and "Charge 40.00 EUR to order 4411" in str(message["Subject"])
    assert inbox.logins == [(b"approvals", LOGIN["SMTP_PASSWORD"].encode(), False)]
    assert f"{PUBLIC_URL}/links/" in present(message.get_body(("plain",))).get_content()
    assert [op for s, op, _ in deployed.requests[fan_out(TEMPLATE_DATA)] if s == "secretsmanager"] == ["GetSecretValue"]
    assert waiting(deployed, "u-17")[0]["id"] == pause["id"]
    assert deployed.refused_by_iam() == []
