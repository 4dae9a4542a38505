"""`sam deploy --guided`, driven through its prompts as a new user answers them.

No AWS account is needed to reach the prompts: the run uses fake credentials and an endpoint
on 127.0.0.1 that refuses connections, so it stops at its first AWS call, the one that looks
for the bucket it uploads to, right after the last prompt. What a user meets before that is
all here: every prompt, in order, each asked once and answered.
"""

import re
import socket
import subprocess

import pytest
import yaml

from .test_template import NO_AUTHORIZER, ROOT, TEMPLATE, CloudFormationLoader, broken_rules, sam_environment

PROMPT = re.compile(r"\t([^\t\n\[]+?) \[(.*?)\]: ")
"""A prompt as click writes it when stdin is not a terminal: a tab, the question, its default in brackets."""
UPLOAD_STEP = "Looking for resources needed for deployment"
"""What SAM prints after the last prompt, before it packages, uploads and creates the change set."""
IAM = "Allow SAM CLI IAM role creation"
SAVE = "Save arguments to configuration file"
SAVED_TO = ["SAM configuration file", "SAM configuration environment"]


@pytest.fixture(scope="module")
def sam_tools():
    return sam_environment()


@pytest.fixture(scope="module")
def template():
    return yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)


def prompts(template, answers):
    """The prompts `sam deploy --guided` asks, in order, for these answers (Enter for the rest)."""
    asked = ["Stack Name", "AWS Region", *(f"Parameter {name}" for name in template["Parameters"])]
    asked += ["Confirm changes before deploy", IAM] + (["Capabilities"] if answers.get(IAM) == "n" else [])
    asked += ["Disable rollback", SAVE] + ([] if answers.get(SAVE) == "n" else SAVED_TO)
    return asked


def refused_port():
    """A port of 127.0.0.1 nothing listens on: a connection there is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def guided(sam_tools, tmp_path, lines):
    """What `sam deploy --guided` writes, given ``lines`` on stdin, in a copy of the project."""
    bin_dir, env = sam_tools
    for name in ("template.yaml", "samconfig.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    for folder in ("functions", "shared", "examples"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    offline = {
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_REGION": "eu-west-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{refused_port()}",
        # one try: botocore would otherwise retry the refused connection with backoff for seconds before it says so
        "AWS_MAX_ATTEMPTS": "1",
        "AWS_RETRY_MODE": "standard",
    }
    environ = {k: v for k, v in env.items() if k not in ("AWS_PROFILE", "AWS_SESSION_TOKEN")} | offline
    done = subprocess.run(
        [str(bin_dir / "sam"), "deploy", "--guided"],
        input="".join(f"{line}\n" for line in lines),
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.stdout + done.stderr


def assert_reached_the_upload_step(output, expected):
    asked = [question for question, _ in PROMPT.findall(output)]
    assert asked == expected, output[-6000:]  # each once: none refused its answer and asked again
    assert "has no authentication" not in output and "Aborted!" not in output, output[-3000:]
    after = output[output.index(UPLOAD_STEP) :]
    assert "Could not connect to the endpoint URL" in after, output[-3000:]  # the first AWS call, and only then


@pytest.mark.timeout(1200)
def test_enter_at_every_prompt_reaches_the_upload_step(sam_tools, template, tmp_path):
    expected = prompts(template, {})
    output = guided(sam_tools, tmp_path, [""] * len(expected))
    assert_reached_the_upload_step(output, expected)
    defaults = dict(PROMPT.findall(output))
    assert defaults["Stack Name"] == "stalwart-agents" and defaults["Parameter Authentication"] == "jwt"
    # what Enter took everywhere deploys: no rule of the template refuses the defaults
    assert broken_rules(template, {}) == []


ANSWERS = {
    "no-iam-confirmation": {IAM: "n"},
    "not-saved": {SAVE: "n", "Confirm changes before deploy": "n", "Disable rollback": "y"},
    "own-provider": {"Parameter JwtIssuer": "https://id.example/realms/shop", "Parameter JwtAudience": "stalwart"},
    "open": {"Parameter Authentication": NO_AUTHORIZER},
    "signed-links": {
        "Parameter WebhookUrl": "https://ops.example/hooks/stalwart",
        "Parameter PublicUrl": "https://approvals.shop.example",
        "Parameter LinkHours": "4",
        "Parameter LinksAlone": "true",
    },
    "given-secrets": {
        "Parameter OperatorTokenArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/operator-AbCdEf",
        "Parameter ModelKeyArn": "arn:aws:ssm:eu-west-1:123456789012:parameter/stalwart/model-key",
        "Parameter ModelKeyEnv": "OPENAI_API_KEY",
        "Parameter AlarmEmail": "oncall@shop.example",
    },
    "slack-and-mail": {
        "Parameter SlackBotTokenArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/slack-bot-AbCdEf",
        "Parameter SlackSigningSecretArn": "arn:aws:ssm:eu-west-1:123456789012:parameter/stalwart/slack-signing",
        "Parameter SmtpUsername": "AKIAIOSFODNN7EXAMPLE",
        "Parameter SmtpPasswordArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/smtp-AbCdEf",
        "Parameter PublicUrl": "https://approvals.shop.example",
    },
}


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("answers", ANSWERS.values(), ids=ANSWERS.keys())
def test_other_answers_reach_it_too(sam_tools, template, tmp_path, answers):
    """An answer other than Enter (declining the IAM confirmation, not saving, another mode) does not abort either."""
    expected = prompts(template, answers)
    output = guided(sam_tools, tmp_path, [answers.get(question, "") for question in expected])
    assert_reached_the_upload_step(output, expected)
    parameters = {
        question.removeprefix("Parameter "): answer
        for question, answer in answers.items()
        if question.startswith("Parameter ")
    }
    assert broken_rules(template, parameters) == []
