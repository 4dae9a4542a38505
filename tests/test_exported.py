"""The public surface is deliberate: this test changes only when the API does."""

import subprocess
import sys

import stalwart_agents


def test_the_package_exports_exactly_its_public_names():
    assert sorted(stalwart_agents.__all__) == [
        "ANSWERS",
        "AlreadyApproved",
        "BadRequest",
        "BadSignature",
        "BatchAnswer",
        "BatchOutcome",
        "CallOutcome",
        "ConfigError",
        "Desk",
        "EditRefused",
        "Forbidden",
        "Inbox",
        "InterruptStale",
        "NondeterministicStep",
        "NotAnApprover",
        "NotFound",
        "OutcomeUnknown",
        "Pause",
        "PauseExpired",
        "Principal",
        "Refusal",
        "Reply",
        "Run",
        "RunBusy",
        "RunWaiting",
        "StalwartError",
        "StepFunction",
        "StorageUnavailable",
        "Tool",
        "ValueTooLarge",
        "Webhook",
        "WebhookError",
        "step",
        "tool",
        "verify_signature",
    ]
    for name in stalwart_agents.__all__:
        assert getattr(stalwart_agents, name) is not None


def test_importing_the_package_imports_no_driver_server_or_detector():
    heavy = ("boto3", "psycopg", "uvicorn", "py3langid", "fastapi", "langgraph", "httpx")
    code = f"import sys, stalwart_agents; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_webhook_receiver_importing_verify_signature_loads_neither_pydantic_nor_yaml():
    code = (
        "import sys; from stalwart_agents import verify_signature, BadSignature; "
        "print(sorted(m for m in ('pydantic', 'yaml', 'celpy', 'httpx') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_lazy_name_is_also_imported_for_type_checkers():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(stalwart_agents))
    checked = next(node for node in tree.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test))
    imports = [node for node in checked.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imports == checked.body  # nothing but imports under TYPE_CHECKING
    for_checkers = {alias.asname or alias.name for node in imports for alias in node.names}
    eager = set(vars(stalwart_agents)) & set(stalwart_agents.__all__) - set(stalwart_agents._LAZY)
    assert for_checkers == set(stalwart_agents._LAZY) and for_checkers | eager == set(stalwart_agents.__all__)
