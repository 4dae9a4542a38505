"""Slack and mail over `stalwart serve`, as a team runs them: agent.yaml names both, a new pause is posted to Slack and
mailed with its signed links, a click in Slack answers it as the person who clicked, and the message then says who
decided; a webhook set beside them still gets its delivery."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import httpx

from .conftest import ROOT
from .server import receiving, serving, stalwart_serve
from .slack_api import BOT_TOKEN, SIGNING_SECRET, FakeSlack, interaction, slack_signed, words
from .test_approvers import shop
from .test_mail import smtp_server

FIONA = "U0FIONA"
FINANCE = """
    approvers:
      - name: finance
        tool: charge_card
        who: '"finance" in who.groups'
"""
PEOPLE = {FIONA: {"name": "fiona", "real_name": "Fiona Walsh", "email": "fiona@shop.example"}}


def eventually(condition: Callable[[], object], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "it never happened"
        time.sleep(0.05)


def test_serve_posts_to_slack_mails_and_answers_a_click_as_the_person_who_clicked(tmp_path, ledger, monkeypatch):
    fake = FakeSlack(PEOPLE)
    with serving(fake.app()) as api, smtp_server() as (inbox, port), receiving("whsec-serve") as hook:
        channels = (
            "channels:\n"
            "  slack:\n"
            "    bot_token: {env: SLACK_BOT_TOKEN}\n"
            "    signing_secret: {env: SLACK_SIGNING_SECRET}\n"
            "    channel: C0OPS\n"
            f"    groups: {{finance: [{FIONA}]}}\n"
            f"    api_url: {api}/api/\n"
            "  mail:\n"
            f"    smtp: {{host: 127.0.0.1, port: {port}, starttls: false}}\n"
            "    sender: approvals@shop.example\n"
            "    to: finance@shop.example\n"
        )
        config = shop(tmp_path, FINANCE)
        config.write_text(channels + config.read_text())
        monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
        monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
        monkeypatch.setenv("STALWART_WEBHOOK_URL", hook.url)
        monkeypatch.setenv("STALWART_WEBHOOK_SECRET", "whsec-serve")
        assert os.environ["STALWART_SHOP_LEDGER"]
        storage = f"sqlite:///{tmp_path / 'runs.db'}"
        with stalwart_serve(config, "--storage", storage, "--public-url", "http://127.0.0.1:9") as (base, _):
            reply = httpx.post(f"{base}/threads/u-1/messages", json={"text": "charge 40 to order 4411"}).json()
            [pause] = reply["waiting"]
            assert reply["not_notified"] == []

            [message] = [fake.messages[key] for key in fake.posted]
            assert "Charge 40.00 EUR to order 4411" in words(message["blocks"])
            [(to, mailed)] = inbox.got
            assert to == ["finance@shop.example"] and "Charge 40.00 EUR to order 4411" in mailed["Subject"]
            assert [d["interrupt"]["id"] for d in hook.got] == [pause["id"]] and "card" in hook.got[0]

            body = interaction(message, "approve", FIONA, "fiona")
            assert httpx.post(f"{base}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
            eventually(lambda: len(ledger("charge")) == 1)
            eventually(
                lambda: any("Fiona Walsh approved" in " ".join(words(m["blocks"])) for m in fake.messages.values())
            )
            forged = httpx.post(f"{base}/slack/actions", content=body, headers=slack_signed(body, secret="guess"))
            assert forged.status_code == 401 and len(ledger("charge")) == 1


def test_the_approvals_example_routes_large_charges_to_finance_in_slack_and_mails_them(tmp_path, ledger, monkeypatch):
    example = (ROOT / "examples" / "approvals" / "agent.yaml").read_text()
    fake = FakeSlack(PEOPLE)
    with serving(fake.app()) as api, smtp_server() as (inbox, port):
        text = example.replace("tools: ../shop/tools.py", f"tools: {ROOT / 'examples' / 'shop' / 'tools.py'}")
        text = text.replace("    channel: C0APPROVALS ", f"    api_url: {api}/api/\n    channel: C0APPROVALS ")
        text = text.replace(
            "{host: smtp.shop.example, port: 587,", f"{{host: 127.0.0.1, port: {port}, starttls: false,"
        )
        text = text.replace("username: {env: SMTP_USER}, password: {env: SMTP_PASSWORD}}", "}")
        text = text.replace("fiona@shop.example", FIONA)
        (tmp_path / "agent.yaml").write_text(text)
        for name, value in {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}.items():
            monkeypatch.setenv(name, value)
        storage = f"sqlite:///{tmp_path / 'runs.db'}"
        with stalwart_serve(tmp_path / "agent.yaml", "--storage", storage) as (base, _):
            [pause] = httpx.post(f"{base}/threads/u-1/messages", json={"text": "charge 1500 to order 4411"}).json()[
                "waiting"
            ]
            [message] = [fake.messages[key] for key in fake.posted]
            assert message["channel"] == "C0FINANCE" and len(inbox.got) == 1
            body = interaction(message, "approve", FIONA, "fiona")
            assert httpx.post(f"{base}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
            eventually(lambda: [c["amount"] for c in ledger("charge")] == [1500])
            assert pause["id"] not in {p["id"] for p in httpx.get(f"{base}/threads/u-1/interrupts").json()["waiting"]}
