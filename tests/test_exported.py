"""The public surface is deliberate: this test changes only when the API does."""

import subprocess
import sys

import stalwart_agents


def test_the_package_exports_exactly_its_public_names():
    assert sorted(stalwart_agents.__all__) == [
        "ANSWERS", "BadRequest", "BadSignature", "ConfigError", "Desk", "Forbidden", "InterruptStale",
        "NondeterministicStep", "NotFound", "OutcomeUnknown", "Pause", "Refusal", "Reply", "Run", "RunBusy",
        "RunWaiting", "StalwartError", "Step", "StepFunction", "StorageUnavailable", "Tool", "Webhook", "WebhookError",
        "step", "tool", "verify_signature",
    ]
    for name in stalwart_agents.__all__:
        assert getattr(stalwart_agents, name) is not None


def test_importing_the_package_imports_no_driver_server_or_detector():
    code = "import sys, stalwart_agents; print(sorted(m for m in ('boto3', 'psycopg', 'uvicorn', 'py3langid', 'fastapi', 'langgraph', 'httpx') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
