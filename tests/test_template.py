"""The SAM application (template.yaml): read as data, then linted and built by the SAM CLI.

The test_sam_* tests run cfn-lint, `sam validate --lint` and `sam build`, from the virtual
environment scripts/sam-env makes (aws-sam-cli pins boto3, so it lives apart). They need
no AWS account and no Docker; the first run installs aws-sam-cli from PyPI, and the build
needs python3.13 (PYENV_VERSION makes pyenv's visible) and PyPI for the layer's wheels.
"""

import contextlib
import fcntl
import hashlib
import http.server
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import threading
import tomllib
import types
from pathlib import Path

import boto3
import pytest
import yaml
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import stalwart_agents
from stalwart_agents.aws import built_agent
from stalwart_agents.aws.handlers import AUTHS
from stalwart_agents.channels.slack import Slack
from stalwart_agents.config import FromEnv, ModelConfig, SlackConfig, load_config
from stalwart_agents.http.app import ROUTES as ROUTES_OF_SERVE
from stalwart_agents.reading.cel import PREBUILT_PARSER
from stalwart_agents.serve import make_app
from stalwart_agents.storage.dynamodb_schema import TABLE, TTL_ATTRIBUTE

from .conftest import SHOP

ROOT = Path(__file__).resolve().parent.parent
MAGIC_313 = (3571).to_bytes(2, "little") + b"\r\n"
"""The first four bytes of a CPython 3.13 .pyc (importlib.util.MAGIC_NUMBER there)."""
TEMPLATE = ROOT / "template.yaml"

# The service's routes, by the name stalwart_agents.aws.handlers.handler() takes (serve.ROUTES): each one function,
# serving every method and path of its route.
ROUTES = {
    "interface": [("GET", "/"), ("GET", "/agent-ui.js"), ("GET", "/inbox"), ("GET", "/favicon.ico")],
    "messages": [("POST", "/threads/{id}/messages")],
    "interrupts": [("GET", "/threads/{id}/interrupts"), ("GET", "/interrupts")],
    "resume": [("POST", "/threads/{id}/resume"), ("POST", "/interrupts/answers")],
    "stream": [("GET", "/threads/{id}/stream"), ("GET", "/threads/{id}/results/{run}/{key}")],
    "rollback": [("POST", "/threads/{id}/rollback"), ("GET", "/threads/{id}/decisions"), ("GET", "/audit")],
    "feedback": [("POST", "/threads/{id}/feedback")],
    "healthz": [("GET", "/healthz")],
    "config": [("GET", "/config.json")],
    "links": [("GET", "/links/{link}"), ("POST", "/links/{link}")],
    "slack": [("POST", "/slack/actions")],
}
PUBLIC = {
    ("GET", "/"),
    ("GET", "/agent-ui.js"),
    ("GET", "/inbox"),
    ("GET", "/favicon.ico"),
    ("GET", "/healthz"),
    ("GET", "/config.json"),
    ("GET", "/threads/{id}/stream"),
    ("GET", "/links/{link}"),
    ("POST", "/slack/actions"),
}
"""Routes API Gateway lets through without a token: the interface and the inbox page (which sign in from the address
fragment), the stream a browser's EventSource opens without headers (the service checks the stream ticket in its
query instead), a signed link's page, opened from a mail, which never acts, and Slack's clicks, which Slack signs
with the app's signing secret (the Slack function checks it before anything: tests/test_slack_lambda.py)."""
LINK_ANSWER = ("POST", "/links/{link}")
"""A link's answer: behind the authorizer, unless LinksAlone makes the link itself the approval."""
LINKS = {"PublicUrl": "https://approvals.shop.example", "WebhookUrl": "https://ops.example/hooks/stalwart"}
KEY_ITEMS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["K#*"]}}
"""The condition on a write to the K# items alone: the session key, and the key that signs links."""
NO_AUTHORIZER = "none-anyone-on-the-internet-may-act"
ISSUER = "https://id.example/realms/shop"
JWT = {"JwtIssuer": ISSUER, "JwtAudience": "stalwart,stalwart-mobile"}
READ_ONLY = {"interface", "config", "healthz", "interrupts", "stream"}
TRANSACT = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}
SECRETS = {
    "STALWART_OPERATOR_TOKEN_ARN": "OperatorTokenArn",
    "STALWART_RESUME_SECRET_ARN": "ResumeSecretArn",
    "STALWART_WEBHOOK_SECRET_ARN": "WebhookSecretArn",
    "STALWART_SLACK_BOT_TOKEN_ARN": "SlackBotTokenArn",
    "STALWART_SLACK_SIGNING_SECRET_ARN": "SlackSigningSecretArn",
    "STALWART_SMTP_PASSWORD_ARN": "SmtpPasswordArn",
}
"""Each secret's ARN's variable, and the parameter that gives it."""
MODEL_KEY = {"STALWART_MODEL_KEY_ARN", "STALWART_MODEL_KEY_ENV"}
RUNS_TURNS = {"messages", "resume", "rollback", "sweep", "links", "clock", "slack"}
"""The functions that run turns or take answers, so call the agent's model: they get its key (the clock's expiry
carries the run on as an answer does)."""
WEBHOOK_POSTERS = {"fanout", "clock"}
"""The functions that post to the webhook: the fan-out new pauses, the clock reminders and escalations."""
SECRET_PARAMETERS = {
    "OperatorTokenArn": {"rollback"},
    "ResumeSecretArn": {"resume"},
    "WebhookSecretArn": WEBHOOK_POSTERS,
    "ModelKeyArn": RUNS_TURNS,
    # the fan-out posts a new pause and the clock its reminders, on Slack and by mail; only the Slack function
    # checks Slack's signature, so only it reads the signing secret
    "SlackBotTokenArn": {"slack", "fanout", "clock"},
    "SlackSigningSecretArn": {"slack"},
    "SmtpPasswordArn": {"fanout", "clock"},
}
"""Each secret's parameter, and the functions whose environment holds it."""
XRAY = {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}
TABLE_ARN = {"Fn::GetAtt": ["Table", "Arn"]}


class CloudFormationLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags: !Sub x reads as {"Fn::Sub": x}, !Ref x as {"Ref": x}."""


def _intrinsic(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}": value}


CloudFormationLoader.add_multi_constructor("!", _intrinsic)


@pytest.fixture(scope="module")
def template():
    return yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)


def resources(template, kind):
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def functions(template):
    return resources(template, "AWS::Serverless::Function")


def route_of(function):
    """The route a function serves: the folder of its CodeUri (functions/<route>/)."""
    return Path(function["Properties"]["CodeUri"]).name


def variables(function):
    return function["Properties"].get("Environment", {}).get("Variables", {})


def roles(template):
    """Every IAM role of the stack, by name: each function's, the fan-out's, the sign-in settings'."""
    return resources(template, "AWS::IAM::Role")


def role_of(template, name):
    """The in-template role a function (SAM's or a plain Lambda one) runs as."""
    props = template["Resources"][name]["Properties"]
    (role,) = props["Role"]["Fn::GetAtt"][:1]
    assert template["Resources"][role]["Type"] == "AWS::IAM::Role", name
    return role


def statements(template, name, parameters=None):
    """Every IAM statement of a function's role, as deployed with these parameters (the defaults filling the rest):
    its inline policies, and the policies of their own attached to it (one that names the function itself, which
    an inline policy cannot without a cycle)."""
    role_name = role_of(template, name)
    role = template["Resources"][role_name]["Properties"]
    # no managed policy: none is narrow enough, and SAM adds none to a role it is given
    assert "ManagedPolicyArns" not in role and "PermissionsBoundary" not in role, name
    policies = resolve(role["Policies"], template, parameters or {})
    attached = [
        p["Properties"]
        for p in resources(template, "AWS::IAM::Policy").values()
        if {"Ref": role_name} in p["Properties"]["Roles"]
        and ("Condition" not in p or resolve({"Condition": p["Condition"]}, template, parameters or {}))
    ]
    assert all(p["Roles"] == [{"Ref": role_name}] for p in attached), name
    return [s for policy in [*policies, *attached] for s in policy["PolicyDocument"]["Statement"]]


def as_list(value):
    return value if isinstance(value, list) else [value]


def actions(template, name, resource=None, parameters=None):
    """The actions a function may take (on ``resource`` only, where given)."""
    return {
        a
        for s in statements(template, name, parameters)
        if resource is None or s["Resource"] == resource
        for a in as_list(s["Action"])
    }


def refs(node):
    """Every parameter or resource a node names with Ref, GetAtt or ${...}."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Ref":
                yield value
            elif key == "Fn::GetAtt":
                yield value[0]
            elif key == "Fn::Sub":
                yield from re.findall(r"\$\{([A-Za-z0-9]+)", value if isinstance(value, str) else value[0])
                yield from refs(value)
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def where_named(template, parameter):
    """The resources (and Globals) that use a parameter."""
    places = {name for name, r in template["Resources"].items() if parameter in refs(r)}
    return places | ({"Globals"} if parameter in refs(template["Globals"]) else set())


NO_VALUE = object()


def resolve(node, template, parameters):
    """A node as CloudFormation resolves it for these parameters (the template's defaults filling the rest).

    Ref to a parameter, Fn::If, conditions (Fn::Equals, Fn::Not, Fn::And, Fn::Or) and Fn::Split are resolved and
    AWS::NoValue removed; a Ref to a resource, Fn::Sub and Fn::GetAtt are left as they are, for CloudFormation to
    resolve at deploy time.
    """
    values = {name: p.get("Default") for name, p in template["Parameters"].items()} | parameters

    def walk(node):
        if isinstance(node, list):
            return [v for v in (walk(item) for item in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, value),) = node.items()
            if key == "Ref" and value == "AWS::NoValue":
                return NO_VALUE
            if key == "Ref" and value in values:
                return values[value]
            if key == "Fn::If":
                condition, yes, no = value
                return walk(yes if walk(template["Conditions"][condition]) else no)
            if key == "Condition":
                return walk(template["Conditions"][value])
            if key == "Fn::Equals":
                return walk(value[0]) == walk(value[1])
            if key == "Fn::Not":
                return not walk(value[0])
            if key == "Fn::And":
                return all(walk(v) for v in value)
            if key == "Fn::Or":
                return any(walk(v) for v in value)
            if key == "Fn::Split":
                return walk(value[1]).split(value[0])
        return {k: v for k, v in ((k, walk(v)) for k, v in node.items()) if v is not NO_VALUE}

    return walk(node)


def broken_rules(template, parameters):
    """The AssertDescription of each rule assertion these parameters break (deploying them fails with it)."""
    broken = []
    for rule in template["Rules"].values():
        if resolve(rule.get("RuleCondition", True), template, parameters):
            broken += [
                a["AssertDescription"] for a in rule["Assertions"] if not resolve(a["Assert"], template, parameters)
            ]
    return broken


def environment(template, name, parameters):
    """A function's environment as deployed with these parameters: the Globals' variables, then its own."""
    own = variables(functions(template)[name])
    return resolve(template["Globals"]["Function"]["Environment"]["Variables"] | own, template, parameters)


def http_routes(template):
    """(method, path, function name) of every route behind the HTTP API."""
    for name, function in functions(template).items():
        for event in function["Properties"]["Events"].values():
            if event["Type"] == "HttpApi":
                yield event["Properties"]["Method"].upper(), event["Properties"]["Path"], name


def api_body(template, parameters):
    """The HTTP API's OpenAPI body as deployed with these parameters."""
    return resolve(template["Resources"]["HttpApi"]["Properties"]["DefinitionBody"], template, parameters)


def run_by(template, kind):
    """The one function an event of this kind runs."""
    (name,) = [
        n for n, f in functions(template).items() if kind in {e["Type"] for e in f["Properties"]["Events"].values()}
    ]
    return name


def fan_out(template):
    return run_by(template, "DynamoDB")


def scheduled(template, route):
    """The one function a schedule runs from functions/<route>/."""
    (name,) = [
        n
        for n, f in functions(template).items()
        if route_of(f) == route and "Schedule" in {e["Type"] for e in f["Properties"]["Events"].values()}
    ]
    return name


def sweep(template):
    return scheduled(template, "sweep")


def clock(template):
    return scheduled(template, "clock")


def every_function(template):
    """SAM's functions, and the plain Lambda ones (the sign-in settings' custom resource)."""
    return functions(template) | resources(template, "AWS::Lambda::Function")


def deployed_resources(template, parameters):
    """The resources a stack deployed with these parameters has: those without a Condition, or whose Condition holds."""
    return {
        name
        for name, r in template["Resources"].items()
        if "Condition" not in r or resolve({"Condition": r["Condition"]}, template, parameters)
    }


EVERYTHING = JWT | {
    "WebhookUrl": "https://ops.example/hooks/stalwart",
    "WebhookSecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/webhook-AbCdEf",
    "OperatorTokenArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/operator-AbCdEf",
    "ResumeSecretArn": "arn:aws:ssm:eu-west-1:123456789012:parameter/stalwart/resume",
    "ModelKeyArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/model-AbCdEf",
    "ModelKeyEnv": "OPENAI_API_KEY",
    "SecretsKmsKeyArn": "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "AlarmEmail": "oncall@shop.example",
    "PublicUrl": "https://approvals.shop.example",
    "SlackBotTokenArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/slack-bot-AbCdEf",
    "SlackSigningSecretArn": "arn:aws:ssm:eu-west-1:123456789012:parameter/stalwart/slack-signing",
    "SmtpUsername": "AKIAIOSFODNN7EXAMPLE",
    "SmtpPasswordArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:stalwart/smtp-AbCdEf",
}
"""Every optional feature on, every secret given."""


# ------------------------------------------------------------------ routes and handlers


def test_every_route_of_the_chapter_has_exactly_one_function(template):
    served: dict[str, list[tuple[str, str]]] = {}
    for name, function in functions(template).items():
        for event in function["Properties"]["Events"].values():
            if event["Type"] == "HttpApi":
                assert event["Properties"]["ApiId"] == {"Ref": "HttpApi"}, name
                served.setdefault(route_of(function), []).append(
                    (event["Properties"]["Method"], event["Properties"]["Path"])
                )
    assert served == ROUTES


def test_the_deployed_routes_are_the_services_routes():
    """Every route make_app serves (the links too, with a public URL, and Slack's clicks with Slack as a channel) is
    deployed, by the function of its name."""
    slack = SlackConfig(bot_token=FromEnv(env="BOT"), signing_secret=FromEnv(env="SIGNING"), channel="C0OPS")
    served_on = Slack(slack, {"BOT": "xoxb-1", "SIGNING": "s"}, cards=lambda pause: NotImplemented)
    app = make_app(SHOP, storage="memory://", public_url=LINKS["PublicUrl"], slack=served_on)
    app.state.desk.close()

    def shaped(path):
        return re.sub(r"\{\w+\}", "{}", path)

    service = {(method, shaped(r.path)) for r in app.routes if isinstance(r, APIRoute) for method in r.methods or ()}
    assert service == {(method, shaped(path)) for paths in ROUTES.values() for method, path in paths}
    assert set(ROUTES) == set(ROUTES_OF_SERVE)


def test_each_handler_is_a_few_lines_that_name_their_own_route(template):
    named = {route_of(f) for f in functions(template).values()}
    on_disk = {p.name for p in (ROOT / "functions").iterdir() if p.is_dir()}
    assert named == on_disk == set(ROUTES) | {"fanout", "sweep", "clock"}
    for function in functions(template).values():
        assert function["Properties"]["CodeUri"] == f"functions/{route_of(function)}/"
        source = (ROOT / "functions" / route_of(function) / "app.py").read_text()
        assert len(source.splitlines()) <= 5
        if route_of(function) in ("fanout", "sweep", "clock"):
            assert f"from stalwart_agents.aws.{route_of(function)} import handler" in source
        elif route_of(function) == "slack":  # answered at once, the click taken in a second invocation
            assert "from stalwart_agents.aws.slack import handler" in source and "handler = handler()" in source
        else:
            assert "from stalwart_agents.aws.handlers import handler" in source
            assert f'handler = handler("{route_of(function)}")' in source
    assert template["Globals"]["Function"]["Handler"] == "app.handler"


# ------------------------------------------------------------------ who may call


def public(parameters):
    """The routes API Gateway lets through without a token, for a stack with these parameters."""
    return PUBLIC | ({LINK_ANSWER} if parameters.get("LinksAlone") == "true" else set())


@pytest.mark.parametrize("links_alone", ["false", "true"])
def test_the_authorizer_guards_every_route_but_the_public_ones(template, links_alone):
    parameters = {"Authentication": "jwt", "LinksAlone": links_alone} | JWT | LINKS
    body = api_body(template, parameters)
    routes = {(method, path) for method, path, _ in http_routes(template)}
    assert routes > public(parameters) and (LINK_ANSWER in public(parameters)) == (links_alone == "true")
    for method, path in routes:
        operation = body["paths"].get(path, {}).get(method.lower(), {})
        assert ("security" in operation) == ((method, path) not in public(parameters)), (method, path)
        if "security" in operation:
            assert operation["security"] == [{"StalwartJwt": []}], (method, path)
    # every operation the body names is a route a function serves: SAM adds its integration there
    assert {(m.upper(), path) for path, ops in body["paths"].items() for m in ops} <= routes


def test_links_are_served_with_a_public_url_and_tell_both_their_ends_the_same(template):
    """The links function, its role and alarms are always deployed (API Gateway takes no operation without an
    integration), and told of links only with PublicUrl; the functions that mint links (the fan-out, and the clock
    for reminders) and the one that answers them are given the same URL and hours; LinksAlone needs links, links
    need a webhook."""
    links = {name for name in template["Resources"] if name.startswith("Links")}
    assert links >= {"LinksFunction", "LinksRole", "LinksLogs", "LinksErrors", "LinksThrottles"}
    assert links <= deployed_resources(template, {}) and links <= deployed_resources(template, LINKS)
    assert not any(
        v.startswith(("STALWART_LINK", "STALWART_PUBLIC")) for v in environment(template, "LinksFunction", {})
    )
    given = LINKS | {"LinkHours": "2", "LinksAlone": "true"}
    told = {"STALWART_PUBLIC_URL": LINKS["PublicUrl"], "STALWART_LINK_HOURS": "2"}
    assert environment(template, "LinksFunction", given).items() >= (told | {"STALWART_LINKS_ALONE": "true"}).items()
    minters = {fan_out(template), clock(template), "SlackFunction"}
    for name in minters:
        assert environment(template, name, given).items() >= told.items(), name
        assert "STALWART_LINKS_ALONE" not in environment(template, name, given), name  # it only mints
        assert not {"STALWART_PUBLIC_URL", "STALWART_LINK_HOURS"} & set(environment(template, name, JWT)), name
    for name in set(functions(template)) - {"LinksFunction"} - minters:
        assert not any(v.startswith("STALWART_LINK") for v in environment(template, name, given)), name
        assert "STALWART_PUBLIC_URL" not in environment(template, name, given), name
    assert where_named(template, "PublicUrl") <= {"LinksFunction", "LinksRole", "HttpApi"} | minters
    (needs_webhook,) = broken_rules(template, {"PublicUrl": LINKS["PublicUrl"]})
    assert "WebhookUrl" in needs_webhook
    (needs_links,) = broken_rules(template, {"LinksAlone": "true"})
    assert "PublicUrl" in needs_links
    assert broken_rules(template, given) == []
    pattern = re.compile(template["Parameters"]["PublicUrl"]["AllowedPattern"])
    for url in ("", LINKS["PublicUrl"], "https://abc123.execute-api.eu-west-1.amazonaws.com/", "https://a.example/ops"):
        assert pattern.fullmatch(url), url
    for url in ("http://approvals.example", "https://a.example/?x=1", "https://a.example/#f", "https://u@a.example"):
        assert not pattern.fullmatch(url), url
    hours = template["Parameters"]["LinkHours"]
    assert (hours["Default"], hours["MinValue"], hours["MaxValue"]) == ("24", 1, 720)
    assert template["Parameters"]["LinksAlone"]["Default"] == "false"


def jwt_configuration(template, parameters):
    scheme = api_body(template, {"Authentication": "jwt"} | parameters)["components"]["securitySchemes"]["StalwartJwt"]
    assert scheme["type"] == "oauth2"
    authorizer = scheme["x-amazon-apigateway-authorizer"]
    assert {k: v for k, v in authorizer.items() if k != "jwtConfiguration"} == {
        "type": "jwt",
        "identitySource": "$request.header.Authorization",
    }
    return authorizer["jwtConfiguration"]


def test_the_authorizer_checks_the_providers_tokens(template):
    assert jwt_configuration(template, JWT) == {"issuer": ISSUER, "audience": ["stalwart", "stalwart-mobile"]}
    # an import warning (a security entry API Gateway could not apply) fails the deploy, never opens a route
    assert template["Resources"]["HttpApi"]["Properties"]["FailOnWarnings"] is True
    assert "Auth" not in template["Resources"]["HttpApi"]["Properties"]
    assert not deployed_resources(template, JWT) & set(resources(template, "AWS::Cognito::UserPool"))


SIGN_IN = {
    "UserPool",
    "UserPoolDomain",
    "UserPoolClient",
    "SignInSettings",
    "SignInSettingsFunction",
    "SignInSettingsRole",
    "SignInSettingsLogs",
}


def test_jwt_is_the_default_and_signs_in_with_a_user_pool_of_its_own(template):
    """Enter at every prompt: the stack makes a Cognito user pool, and the authorizer trusts its interface client."""
    parameter = template["Parameters"]["Authentication"]
    assert parameter["Default"] == "jwt" and parameter["AllowedValues"] == ["jwt", NO_AUTHORIZER]
    assert broken_rules(template, {}) == []
    assert deployed_resources(template, {}) >= SIGN_IN
    assert jwt_configuration(template, {}) == {
        "issuer": {"Fn::Sub": "https://${UserPool.ProviderURL}"},
        "audience": [{"Ref": "UserPoolClient"}],
    }
    for given in (JWT, {"Authentication": NO_AUTHORIZER}):
        assert not SIGN_IN & deployed_resources(template, given), given
    pool = template["Resources"]["UserPool"]["Properties"]
    assert pool["AdminCreateUserConfig"] == {"AllowAdminCreateUserOnly": True}  # nobody signs themselves up
    client = template["Resources"]["UserPoolClient"]["Properties"]
    assert client["GenerateSecret"] is False and client["SupportedIdentityProviders"] == ["COGNITO"]
    # the hosted sign-in page's prefix: "stalwart-" and the stack id's UUID, unique in the region
    domain = template["Resources"]["UserPoolDomain"]["Properties"]["Domain"]
    assert domain == {
        "Fn::Join": ["-", ["stalwart", {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}]]
    }
    assert re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", "stalwart-" + "1c2fa620-982a-11e3-aff7-50e2416294e0")


def test_the_sign_in_callback_is_written_after_the_api_exists(template):
    """The client's callback URL needs the API's id, and the API's authorizer the client's: SignInSettings, which
    needs both, writes the callback, so neither of the two needs the other's."""
    assert "HttpApi" not in set(refs(template["Resources"]["UserPoolClient"]))
    assert {"UserPoolClient", "UserPool"} <= set(refs(template["Resources"]["HttpApi"]))
    settings = template["Resources"]["SignInSettings"]["Properties"]
    assert settings["ServiceToken"] == {"Fn::GetAtt": ["SignInSettingsFunction", "Arn"]}
    assert settings["CallbackURL"] == template["Outputs"]["ApiUrl"]["Value"]
    assert settings["InboxCallbackURL"] == template["Outputs"]["InboxUrl"]["Value"]
    assert settings["AllowedOAuthFlows"] == ["implicit"]  # the interface reads #access_token (response_type=token)
    assert "openid" in settings["AllowedOAuthScopes"]
    (statement,) = [s for s in statements(template, "SignInSettingsFunction") if s["Sid"] == "WritesTheAppClient"]
    assert set(statement["Action"]) == {"cognito-idp:DescribeUserPoolClient", "cognito-idp:UpdateUserPoolClient"}
    assert statement["Resource"] == {"Fn::GetAtt": ["UserPool", "Arn"]}
    for output, callback in (("SignInUrl", "CallbackURL"), ("InboxSignInUrl", "InboxCallbackURL")):
        sign_in = template["Outputs"][output]["Value"]["Fn::Sub"]
        assert "response_type=token" in sign_in and sign_in.endswith("redirect_uri=" + settings[callback]["Fn::Sub"])


@contextlib.contextmanager
def cloudformation_responses():
    """Where a custom resource answers CloudFormation: a URL on 127.0.0.1, and the bodies PUT to it."""
    received = []

    class Answers(http.server.BaseHTTPRequestHandler):
        def do_PUT(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/answer", received
    finally:
        server.shutdown()
        thread.join()


def test_the_sign_in_settings_function_writes_the_callback_and_keeps_the_rest(
    template, moto_endpoint, fake_aws, monkeypatch
):
    """The inline function behind SignInSettings, run against Cognito (moto's): it answers CloudFormation either way."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    code = template["Resources"]["SignInSettingsFunction"]["Properties"]["Code"]["ZipFile"]
    function = types.ModuleType("index")
    exec(compile(code, "index.py", "exec"), function.__dict__)
    cognito = boto3.client("cognito-idp")
    pool = cognito.create_user_pool(PoolName="stalwart")["UserPool"]["Id"]
    client = cognito.create_user_pool_client(
        UserPoolId=pool,
        ClientName="interface",
        ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
        AccessTokenValidity=1,
        TokenValidityUnits={"AccessToken": "hours"},
        SupportedIdentityProviders=["COGNITO"],
    )["UserPoolClient"]["ClientId"]
    api_url = "https://a1b2c3.execute-api.us-east-1.amazonaws.com/"
    settings = resolve(template["Resources"]["SignInSettings"]["Properties"], template, {}) | {
        "UserPoolId": pool,
        "ClientId": client,
        "CallbackURL": api_url,
        "InboxCallbackURL": f"{api_url}inbox",
        "Revision": "1",  # CloudFormation sends text
    }
    context = types.SimpleNamespace(log_stream_name="2026/01/01/[$LATEST]abc")
    with cloudformation_responses() as (url, answers):
        event = {"ResponseURL": url, "StackId": "arn:stack", "RequestId": "r-1", "LogicalResourceId": "SignInSettings"}
        function.handler(event | {"RequestType": "Create", "ResourceProperties": settings}, context)
        function.handler(
            event | {"RequestType": "Update", "ResourceProperties": settings | {"ClientId": "no-such-client"}}, context
        )
        function.handler(
            event | {"RequestType": "Delete", "ResourceProperties": settings | {"ClientId": "no-such-client"}}, context
        )
    written = cognito.describe_user_pool_client(UserPoolId=pool, ClientId=client)["UserPoolClient"]
    assert written["CallbackURLs"] == [api_url, f"{api_url}inbox"] and written["LogoutURLs"] == [api_url]
    assert written["AllowedOAuthFlows"] == ["implicit"] and written["AllowedOAuthFlowsUserPoolClient"] is True
    assert set(written["AllowedOAuthScopes"]) == {"openid", "email", "profile"}
    assert written["ExplicitAuthFlows"] == ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]  # kept as they were
    assert written["AccessTokenValidity"] == 1 and written["ClientName"] == "interface"
    created, failed, deleted = answers
    assert created["Status"] == deleted["Status"] == "SUCCESS"  # deleting leaves the client to the stack
    assert failed["Status"] == "FAILED" and "ResourceNotFoundException" in failed["Reason"]  # said, never a hang
    assert created["PhysicalResourceId"] == "SignInSettings-sign-in" and created["RequestId"] == "r-1"


def test_an_issuer_and_an_audience_go_together(template):
    (audience_missing,) = broken_rules(template, {"JwtIssuer": ISSUER})
    assert "JwtAudience" in audience_missing and "Leave both empty" in audience_missing
    (issuer_missing,) = broken_rules(template, {"JwtAudience": "stalwart"})
    assert "JwtIssuer" in issuer_missing
    assert broken_rules(template, JWT) == []
    assert broken_rules(template, {"Authentication": NO_AUTHORIZER}) == []


def test_only_the_explicit_parameter_deploys_without_an_authorizer(template):
    for mode in template["Parameters"]["Authentication"]["AllowedValues"]:
        body = api_body(template, {"Authentication": mode} | JWT)
        secured = [op for ops in body["paths"].values() for op in ops.values() if "security" in op]
        assert (mode == NO_AUTHORIZER) == (secured == [] and "components" not in body), mode


def test_the_functions_are_told_who_checks_the_callers(template):
    for mode, told in {"jwt": "api-gateway", NO_AUTHORIZER: "none"}.items():
        for _, _, name in http_routes(template):
            assert environment(template, name, {"Authentication": mode} | JWT)["STALWART_AUTH"] == told, (mode, name)
        assert told in AUTHS
    for parameter in ("Authentication", "JwtIssuer", "JwtAudience", "AllowedOrigins"):
        assert where_named(template, parameter) <= {"Globals", "HttpApi"}, parameter


def test_cors_is_for_exactly_the_allowed_origins(template):
    origins = "https://shop.example,https://intranet.example:8443"
    body = api_body(template, {"AllowedOrigins": origins} | JWT)
    assert body["x-amazon-apigateway-cors"]["allowOrigins"] == origins.split(",")
    assert "x-amazon-apigateway-cors" not in api_body(template, JWT)
    assert "CorsConfiguration" not in template["Resources"]["HttpApi"]["Properties"]
    name = next(name for _, _, name in http_routes(template))
    assert environment(template, name, {"AllowedOrigins": origins})["STALWART_ALLOWED_ORIGINS"] == origins
    assert "STALWART_ALLOWED_ORIGINS" not in environment(template, name, {})
    pattern = re.compile(template["Parameters"]["AllowedOrigins"]["AllowedPattern"])
    assert all(pattern.fullmatch(value) for value in ("", origins, "http://localhost:5173"))
    refused = (
        "*",
        "https://*.shop.example",
        "https://shop.example/",
        "https://a.example, https://b.example",
        "null",
        "file://x",
    )
    assert not any(pattern.fullmatch(value) for value in refused)
    for origin in origins.split(","):  # what the deploy takes, the functions take too
        make_app(SHOP, storage="memory://", allowed_origins=[origin]).state.desk.close()


def test_api_gateway_answers_preflights_as_the_service_would(template):
    """With CORS on, API Gateway answers preflights itself and replaces the function's CORS headers."""
    cors = api_body(template, {"AllowedOrigins": "https://shop.example"} | JWT)["x-amazon-apigateway-cors"]
    app = make_app(SHOP, storage="memory://", allowed_origins=["https://shop.example"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        preflight = client.options(
            "/threads/u-1/messages",
            headers={
                "Origin": "https://shop.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            },
        )
        answer = client.get("/healthz", headers={"Origin": "https://shop.example"})
    app.state.desk.close()

    def listed(header):
        return {h.strip().lower() for h in header.split(",")}

    assert {m.lower() for m in cors["allowMethods"]} == listed(preflight.headers["access-control-allow-methods"])
    assert set(cors["allowHeaders"]) == listed(preflight.headers["access-control-allow-headers"]) - {
        "accept",
        "accept-language",
        "content-language",
    }
    assert cors["maxAge"] == int(preflight.headers["access-control-max-age"])
    assert set(cors["exposeHeaders"]) == listed(answer.headers["access-control-expose-headers"])
    assert "allowCredentials" not in cors


# ------------------------------------------------------------------ layers and runtime


def test_the_layers_hold_the_package_and_the_shop_agent(template):
    shared, agent = template["Resources"]["SharedLayer"], template["Resources"]["AgentLayer"]
    architectures = template["Globals"]["Function"]["Architectures"]
    assert template["Globals"]["Function"]["Runtime"] == "python3.13"
    assert shared["Properties"]["ContentUri"] == "shared/"
    assert shared["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": architectures[0]}
    makefile = (ROOT / "shared" / "Makefile").read_text()
    assert "build-SharedLayer:" in makefile and "--invalidation-mode unchecked-hash" in makefile
    assert "--platform manylinux2014_aarch64" in makefile and "--python-version 3.13" in makefile
    assert (ROOT / "shared" / "stalwart_agents" / "__init__.py").exists()
    assert agent["Properties"]["ContentUri"] == "examples/shop/"
    assert agent["Metadata"] == {
        "BuildMethod": "makefile",
        "BuildArchitecture": architectures[0],
        "ContextPath": "agent-layer",
    }
    assert (ROOT / "examples" / "shop" / "agent.yaml").exists()
    for layer in (shared, agent):
        assert layer["Properties"]["CompatibleRuntimes"] == ["python3.13"]
        assert layer["Properties"]["CompatibleArchitectures"] == architectures
    assert template["Globals"]["Function"]["Layers"] == [{"Ref": "SharedLayer"}, {"Ref": "AgentLayer"}]
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert env["STALWART_CONFIG"] == "/opt/agent.yaml"
    assert env["STALWART_STORAGE"] == {"Fn::Sub": "dynamodb://${Table}?region=${AWS::Region}"}


def test_the_layer_requirements_are_the_packages_runtime_dependencies():
    def name(requirement):
        return re.split(r"[<>=~!\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")

    lines = [line.strip() for line in (ROOT / "shared" / "requirements.txt").read_text().splitlines()]
    pinned = [line for line in lines if line and not line.startswith("#")]
    assert all(re.search(r"(~=|==)\d", line) for line in pinned), pinned
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    # no uvicorn nor its HTTP parser and event loop (mangum runs the app) and no PyJWT (API Gateway verifies tokens;
    # test_lambda checks it is not imported)
    runtime = {name(r) for r in project["project"]["dependencies"]} - {"uvicorn", "httptools", "uvloop", "pyjwt"}
    # and what only Lambda needs (the aws extra): Mangum runs the app there, Powertools logs, measures and traces it,
    # and the Slack channel's SDK, which its functions post and check clicks with
    lambda_only = {name(r) for r in project["project"]["optional-dependencies"]["aws"]}
    assert lambda_only == {"mangum", "boto3", "aws-lambda-powertools", "slack-sdk"}
    # and OpenTelemetry's SDK and exporter (the otel extra), loaded where the stack's OtlpEndpoint is set
    otel = {name(r) for r in project["project"]["optional-dependencies"]["otel"]}
    assert {name(r) for r in pinned} == runtime | lambda_only | otel


# ------------------------------------------------------------------ the table


def test_the_table_is_the_backends_table(template):
    table = template["Resources"]["Table"]
    props = table["Properties"]
    for key in ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "BillingMode"):
        assert props[key] == TABLE[key], key
    # CloudFormation has no StreamEnabled: a StreamSpecification there turns the stream on.
    assert TABLE["StreamSpecification"]["StreamEnabled"] is True
    assert props["StreamSpecification"] == {"StreamViewType": TABLE["StreamSpecification"]["StreamViewType"]}
    assert props["TimeToLiveSpecification"] == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["SSESpecification"] == {"SSEEnabled": True}
    assert "TableName" not in props  # a fixed name would block replacement and a second stack
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"


# ------------------------------------------------------------------ secrets and parameters


def test_no_parameter_holds_a_secret(template):
    """A secret is the ARN of a Secrets Manager secret or an SSM SecureString parameter, never its value."""
    parameters = template["Parameters"]
    assert not [
        name for name, p in parameters.items() if p.get("NoEcho")
    ]  # SAM's guided prompts cannot leave those empty
    assert "{{resolve:" not in TEMPLATE.read_text()  # nor is a value pulled into a property by a dynamic reference
    for name in SECRET_PARAMETERS:
        assert parameters[name]["Type"] == "String" and parameters[name]["Default"] == "", name
        pattern = re.compile(parameters[name]["AllowedPattern"])
        for arn in (
            "",
            EVERYTHING["OperatorTokenArn"],
            EVERYTHING["ResumeSecretArn"],
            "arn:aws-cn:ssm:cn-north-1:123456789012:parameter/a/b",
        ):
            assert pattern.fullmatch(arn), (name, arn)
        for value in (
            "0123456789abcdef0123456789abcdef",
            "arn:aws:s3:::bucket",
            "arn:aws:secretsmanager:eu-west-1:123456789012:secret:a b",
        ):
            assert not pattern.fullmatch(value), (name, value)
    assert where_named(template, "WebhookUrl") == {fan_out(template), clock(template)}


def secret_grants(template, name, parameters):
    """The resources a function may read secrets from (each statement that allows secretsmanager:GetSecretValue)."""
    return [
        s["Resource"]
        for s in statements(template, name, parameters)
        if "secretsmanager:GetSecretValue" in as_list(s["Action"])
    ]


def test_each_secret_reaches_only_the_function_that_needs_it(template):
    """Its ARN in that function's environment alone, and a grant to read it in that function's role alone."""
    assert not (set(SECRETS) | MODEL_KEY) & set(template["Globals"]["Function"]["Environment"]["Variables"])
    for name, function in functions(template).items():
        route = route_of(function)
        env = environment(template, name, EVERYTHING)
        given = []
        for variable, parameter in SECRETS.items():
            assert (variable in env) == (route in SECRET_PARAMETERS[parameter]), (name, variable)
            if variable in env:
                assert env[variable] == EVERYTHING[parameter], name
                given.append(env[variable])
        if route in RUNS_TURNS:
            assert (
                env["STALWART_MODEL_KEY_ARN"] == EVERYTHING["ModelKeyArn"]
                and env["STALWART_MODEL_KEY_ENV"] == "OPENAI_API_KEY"
            ), name
            given.append(EVERYTHING["ModelKeyArn"])
        else:
            assert not MODEL_KEY & set(env), name
        # its own secrets' ARNs, no other
        assert sorted(secret_grants(template, name, EVERYTHING)) == sorted(given), name
        for statement in statements(template, name, EVERYTHING):
            if statement["Resource"] in given:
                assert set(as_list(statement["Action"])) == {"secretsmanager:GetSecretValue", "ssm:GetParameter"}, name
            if "kms:Decrypt" in as_list(statement["Action"]):
                assert given and statement["Resource"] == EVERYTHING["SecretsKmsKeyArn"], name
                assert statement["Condition"] == {
                    "StringLike": {"kms:ViaService": ["secretsmanager.*.amazonaws.com", "ssm.*.amazonaws.com"]}
                }
    by_route = {route_of(f): n for n, f in functions(template).items()}
    for parameter, routes in SECRET_PARAMETERS.items():
        owners = {by_route[r] for r in routes}
        assert where_named(template, parameter) == owners | {role_of(template, n) for n in owners}, parameter


def test_a_secret_not_given_is_generated_where_its_feature_needs_one(template):
    by_route = {route_of(f): n for n, f in functions(template).items()}
    generated = resources(template, "AWS::SecretsManager::Secret")
    assert set(generated) == {"OperatorToken", "WebhookSecret"}
    for secret in generated.values():
        assert secret["Properties"]["GenerateSecretString"] == {"PasswordLength": 64, "ExcludePunctuation": True}
        assert "SecretString" not in secret["Properties"]
    # by default the operator token is generated, and the rollback function reads the generated one
    assert "OperatorToken" in deployed_resources(template, {})
    assert environment(template, by_route["rollback"], {})["STALWART_OPERATOR_TOKEN_ARN"] == {"Ref": "OperatorToken"}
    assert secret_grants(template, by_route["rollback"], {}) == [{"Ref": "OperatorToken"}]
    assert "OperatorToken" not in deployed_resources(template, EVERYTHING)
    # the webhook's only with a webhook and none given; the resume secret never (a signed-in person needs none)
    assert "WebhookSecret" not in deployed_resources(template, {})
    assert "WebhookSecret" in deployed_resources(template, {"WebhookUrl": EVERYTHING["WebhookUrl"]})
    for name in (fan_out(template), clock(template)):
        webhook = {"WebhookUrl": EVERYTHING["WebhookUrl"]}
        assert environment(template, name, webhook)["STALWART_WEBHOOK_SECRET_ARN"] == {"Ref": "WebhookSecret"}, name
        assert secret_grants(template, name, webhook) == [{"Ref": "WebhookSecret"}], name
    assert "STALWART_RESUME_SECRET_ARN" not in environment(template, by_route["resume"], {})
    # the stack tells where each is, never what
    outputs = template["Outputs"]
    assert resolve(outputs["OperatorTokenArn"]["Value"], template, {}) == {"Ref": "OperatorToken"}
    assert resolve(outputs["WebhookSecretArn"]["Value"], template, {}) == {"Ref": "WebhookSecret"}
    assert not [o for o in outputs.values() if "Fn::GetAtt" in json.dumps(o) and "SecretString" in json.dumps(o)]


def test_a_model_key_needs_the_variable_the_agent_reads(template):
    key = {"ModelKeyArn": EVERYTHING["ModelKeyArn"]}
    (told,) = broken_rules(template, key)
    assert "ModelKeyEnv" in told and "model.api_key_env" in told
    (told,) = broken_rules(template, {"ModelKeyEnv": "OPENAI_API_KEY"})
    assert "ModelKeyArn" in told
    assert broken_rules(template, key | {"ModelKeyEnv": "OPENAI_API_KEY"}) == []
    pattern = re.compile(template["Parameters"]["ModelKeyEnv"]["AllowedPattern"])
    assert all(pattern.fullmatch(v) for v in ("", "OPENAI_API_KEY", "anthropic_key"))
    assert not any(
        pattern.fullmatch(v) for v in ("AWS_SECRET_ACCESS_KEY", "LAMBDA_TASK_ROOT", "_HANDLER", "1KEY", "A-B")
    )


# ------------------------------------------------------------------ least privilege


def test_no_policy_grants_a_wildcard_action_or_resource(template):
    # every role is a function's own
    assert set(roles(template)) == {role_of(template, name) for name in every_function(template)}
    for name in every_function(template):
        for parameters in ({}, EVERYTHING):
            for statement in statements(template, name, parameters):
                assert statement["Effect"] == "Allow", name
                assert "NotAction" not in statement and "NotResource" not in statement, name
                assert not any("*" in action for action in as_list(statement["Action"])), (name, statement)
                if any(r == "*" or r == {"Fn::Sub": "*"} for r in as_list(statement["Resource"])):
                    # X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions:
                    # IAM accepts them on "*" only. Nothing else is granted on it.
                    assert set(as_list(statement["Action"])) == XRAY, (name, statement)


@pytest.mark.parametrize("tracing", ["Active", "PassThrough"])
def test_the_tracing_parameter_sets_lambdas_tracing_and_powertools_alike(template, tracing):
    assert template["Parameters"]["Tracing"]["Default"] == "Active"
    parameters = {"Tracing": tracing}
    assert resolve(template["Globals"]["Function"]["Tracing"], template, parameters) == tracing
    for name in functions(template):
        disabled = environment(template, name, parameters)["POWERTOOLS_TRACE_DISABLED"]
        assert disabled == ("false" if tracing == "Active" else "true"), name


@pytest.mark.parametrize("endpoint", ["", "https://otel.example.com:4318"])
def test_the_otlp_endpoint_parameter_turns_opentelemetry_on_in_every_function(template, endpoint):
    parameter = template["Parameters"]["OtlpEndpoint"]
    assert parameter["Default"] == ""
    pattern = re.compile(parameter["AllowedPattern"])
    assert pattern.fullmatch(endpoint)
    assert not pattern.fullmatch("https://otel.example.com/?key=secret") and not pattern.fullmatch("otel:4318")
    for name in functions(template):
        variables = environment(template, name, {"OtlpEndpoint": endpoint})
        if endpoint:
            assert variables["OTEL_EXPORTER_OTLP_ENDPOINT"] == endpoint, name
            assert variables["OTEL_SERVICE_NAME"] == "stalwart-agents", name
        else:
            assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in variables and "OTEL_SERVICE_NAME" not in variables, name


def test_each_function_traces_and_writes_its_own_log_only(template):
    for name, function in every_function(template).items():
        log_group = function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        logs = [s for s in statements(template, name) if any(a.startswith("logs:") for a in as_list(s["Action"]))]
        assert logs == [
            {
                "Sid": "WritesItsLog",
                "Effect": "Allow",
                "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
                "Resource": {"Fn::GetAtt": [log_group, "Arn"]},
            }
        ], name
        if name in functions(template):
            assert actions(template, name) >= XRAY, name


LISTINGS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["I#*"]}}
COMMITS_RUNS = {"messages", "resume", "links", "rollback", "slack", "sweep", "clock"}
"""The functions whose commits open, answer or close pauses, and so put and delete their inbox listings."""


def index(name):
    return {"Fn::Sub": f"${{Table.Arn}}/index/{name}"}


def test_each_function_gets_only_what_its_route_does_to_the_table(template):
    table, by_id, live, inbox, wake = TABLE_ARN, index("by_id"), index("live"), index("inbox"), index("wake")
    record = index("record")
    for name, function in functions(template).items():
        route = route_of(function)
        granted = actions(template, name, parameters=EVERYTHING)
        assert not granted & {"dynamodb:Scan", "dynamodb:BatchWriteItem", "dynamodb:DeleteTable"}, name
        # an item is deleted only as the inbox's listing of a pause answered or closed, by what commits runs
        deletes = [s for s in statements(template, name, EVERYTHING) if "dynamodb:DeleteItem" in as_list(s["Action"])]
        assert [(s["Action"], s["Condition"]) for s in deletes] == (
            [(["dynamodb:DeleteItem"], LISTINGS)] if route in COMMITS_RUNS else []
        ), name
        # a link names its pause, found by id as a resume's is, and the fan-out finds one another invocation claimed
        by_id_readers = ("resume", "links", "slack", "fanout")
        by_id_granted = {"dynamodb:Query"} if route in by_id_readers else set()
        assert actions(template, name, by_id, EVERYTHING) == by_id_granted, name
        assert (actions(template, name, live) != set()) == (route == "sweep"), name
        # due pauses are read from the wake index by the clock alone
        assert actions(template, name, wake) == ({"dynamodb:Query"} if route == "clock" else set()), name
        # the inbox reads its index, then the pauses' runs and threads together, and nothing else does either
        assert actions(template, name, inbox) == ({"dynamodb:Query"} if route == "interrupts" else set()), name
        # the decision record's export reads its index, and only the operator's function exports it
        assert actions(template, name, record) == ({"dynamodb:Query"} if route == "rollback" else set()), name
        # and the clock the due pauses, read again by key (R#<run>) to leave out what the index had yet to drop
        batch = [s for s in statements(template, name, EVERYTHING) if "dynamodb:BatchGetItem" in as_list(s["Action"])]
        batched = {"interrupts": ["R#*", "T#*"], "clock": ["R#*"]}
        assert [s["Condition"] for s in batch] == (
            [{"ForAllValues:StringLike": {"dynamodb:LeadingKeys": batched[route]}}] if route in batched else []
        ), name
        on_table = actions(template, name, table, EVERYTHING)
        if route == "fanout":
            # with links, it may make the key that signs them (K#links), and write no other item but its deliveries
            assert on_table == {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:PutItem"}
            assert "dynamodb:PutItem" not in actions(template, name, table, {"WebhookUrl": LINKS["WebhookUrl"]})
            (puts,) = [s for s in statements(template, name, EVERYTHING) if "dynamodb:PutItem" in s["Action"]]
            assert puts["Condition"] == KEY_ITEMS
            continue
        assert not any(a.startswith(("sqs:", "dynamodb:GetRecords")) for a in granted), name
        tables = [
            s
            for s in statements(template, name, EVERYTHING)
            if any(a.startswith("dynamodb:") for a in as_list(s["Action"]))
        ]
        assert all(s["Resource"] in (table, by_id, live, inbox, wake, record) for s in tables), name
        if route == "clock":
            # it claims and moves wakes (UpdateItem), and expires a pause through the engine's commit, which writes
            # Put and Update (never a ConditionCheck, so not ConditionCheckItem: tests/test_clock_lambda.py records it)
            assert on_table == {
                "dynamodb:GetItem",
                "dynamodb:Query",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:BatchGetItem",
            }
            continue
        if route == "sweep":
            # it finds live threads through the index alone, and carries a dead worker's run on in a transaction
            assert actions(template, name, live) == {"dynamodb:Query"}
            assert on_table == TRANSACT | {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:DeleteItem"}
            continue
        assert "dynamodb:GetItem" in on_table, name  # every cold start reads the session key
        if route in READ_ONLY:
            assert not on_table & {"dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}, name
            # it may write one item only: the session key, K#session, on a first start
            for statement in tables:
                if "dynamodb:PutItem" in as_list(statement["Action"]):
                    assert statement["Condition"] == KEY_ITEMS, name
            assert "dynamodb:PutItem" in on_table, name
        else:
            assert on_table >= TRANSACT | {"dynamodb:GetItem", "dynamodb:Query"}, name


def test_the_sweep_runs_every_five_minutes_within_its_schedule(template):
    function = functions(template)[sweep(template)]
    (event,) = function["Properties"]["Events"].values()
    assert event["Properties"]["Schedule"] == "rate(5 minutes)"
    assert function["Properties"]["Timeout"] < 5 * 60  # one sweep ends before the next starts
    assert function["Properties"]["CodeUri"] == "functions/sweep/"


def test_the_clock_runs_every_minute_and_posts_only_where_there_is_a_webhook(template):
    """EventBridge's finest rate; a failed tick is not retried (the next one is a minute away), and ticks that overlap
    are kept apart by the claims in the store. Without a WebhookUrl the clock reads no secret and posts nothing."""
    name = clock(template)
    function = functions(template)[name]
    (event,) = function["Properties"]["Events"].values()
    assert event["Properties"]["Schedule"] == "rate(1 minute)"
    assert function["Properties"]["EventInvokeConfig"] == {"MaximumRetryAttempts": 0}
    assert 60 < function["Properties"]["Timeout"] < 15 * 60  # expiries carry runs on, each a model call
    assert "Condition" not in function  # deadlines are kept whether or not anyone is told of them
    assert deployed_resources(template, {}) >= {name, role_of(template, name), "ClockLogs"}
    posters = {
        route_of(f)
        for n, f in functions(template).items()
        if "STALWART_WEBHOOK_URL" in environment(template, n, EVERYTHING)
    }
    assert posters == WEBHOOK_POSTERS
    given = EVERYTHING["WebhookSecretArn"]
    for parameters in ({}, {"WebhookSecretArn": given}):  # a secret without a URL is read by nobody
        env = environment(template, name, parameters)
        assert not {"STALWART_WEBHOOK_URL", "STALWART_WEBHOOK_SECRET_ARN"} & set(env), parameters
        assert secret_grants(template, name, parameters) == [], parameters
    webhook = {"WebhookUrl": EVERYTHING["WebhookUrl"], "WebhookSecretArn": given}
    env = environment(template, name, webhook)
    assert (env["STALWART_WEBHOOK_URL"], env["STALWART_WEBHOOK_SECRET_ARN"]) == (EVERYTHING["WebhookUrl"], given)
    assert secret_grants(template, name, webhook) == [given]
    assert secret_grants(template, name, webhook) == secret_grants(template, fan_out(template), webhook)


def test_each_wait_ends_before_what_waits_on_it(template):
    """A model call gives up before its function, and a route's function before API Gateway's 30-second limit."""
    model = ModelConfig.model_fields["timeout"].default
    function = template["Globals"]["Function"]["Timeout"]
    assert model < function < 30
    for _, _, name in http_routes(template):
        assert "Timeout" not in functions(template)[name]["Properties"], name
    for event in (
        e for _, _, n in http_routes(template) for e in functions(template)[n]["Properties"]["Events"].values()
    ):
        assert event["Properties"].get("TimeoutInMillis", 30000) == 30000


# ------------------------------------------------------------------ the fan-out


def _matches(pattern, record):
    """The subset of Lambda's filter rule syntax the template uses: exact values, prefix and anything-but (which, as
    Lambda's, matches a value that is there and is none of those listed)."""
    for key, rule in pattern.items():
        if isinstance(rule, dict):
            if not isinstance(record.get(key), dict) or not _matches(rule, record[key]):
                return False
            continue
        value = record.get(key)
        for option in rule:
            if isinstance(option, dict):
                assert set(option) in ({"prefix"}, {"anything-but"}), (
                    f"a filter operator this test does not know: {option}"
                )
                if "anything-but" in option:
                    if isinstance(value, str) and value not in option["anything-but"]:
                        break
                elif isinstance(value, str) and value.startswith(option["prefix"]):
                    break
            elif value == option:
                break
        else:
            return False
    return True


def _record(event, pk, sk, status=None):
    keys = {"pk": {"S": pk}, "sk": {"S": sk}}
    image = dict(keys) | ({"status": {"S": status}} if status else {})
    return {
        "eventName": event,
        "eventSource": "aws:dynamodb",
        "dynamodb": {"Keys": keys, "NewImage": image, "StreamViewType": "NEW_IMAGE"},
    }


def test_the_fan_out_reads_only_new_pauses_from_the_stream(template):
    function = functions(template)[fan_out(template)]
    (event,) = function["Properties"]["Events"].values()
    props = event["Properties"]
    assert props["Stream"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert props["StartingPosition"] == "LATEST" and props["BatchSize"] == 10
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["BisectBatchOnFunctionError"] is True
    assert 0 <= props["MaximumRetryAttempts"] <= 5
    assert 60 <= props["MaximumRecordAgeInSeconds"] <= 24 * 3600  # the stream keeps records a day
    for parameters in ({"WebhookUrl": LINKS["WebhookUrl"]}, SLACK):
        patterns = [json.loads(f["Pattern"]) for f in fan_out_filters(template, parameters)]

        def delivered(record, patterns=patterns):
            return any(_matches(p, record) for p in patterns)

        assert delivered(_record("INSERT", "R#run-1", "P#pause-1"))
        # a claim, a delivery recorded, a wake moved: the pause is still open
        assert not delivered(_record("MODIFY", "R#run-1", "P#pause-1", status="open"))
        # decided: with Slack, its message is settled
        for status in ("answered", "expired", "closed"):
            decided = _record("MODIFY", "R#run-1", "P#pause-1", status=status)
            assert delivered(decided) == (parameters is SLACK), (parameters, status)
        assert not delivered(_record("REMOVE", "R#run-1", "P#pause-1"))  # TTL
        for pk, sk in [
            ("R#run-1", "RUN"),
            ("R#run-1", "J#key"),
            ("T#u-17", "THREAD"),
            ("T#u-17", "E#000000000001"),
            ("K#session", "SECRET"),
        ]:
            assert not delivered(_record("INSERT", pk, sk)), (pk, sk)
            assert not delivered(_record("MODIFY", pk, sk, status="answered")), (pk, sk)


SLACK = {
    "SlackBotTokenArn": EVERYTHING["SlackBotTokenArn"],
    "SlackSigningSecretArn": EVERYTHING["SlackSigningSecretArn"],
}


def fan_out_filters(template, parameters):
    """The fan-out's FilterCriteria's filters, as deployed with these parameters."""
    (event,) = functions(template)[fan_out(template)]["Properties"]["Events"].values()
    return resolve(event["Properties"]["FilterCriteria"]["Filters"], template, parameters)


def test_what_keeps_failing_lands_in_an_encrypted_dead_letter_queue(template):
    name = fan_out(template)
    (event,) = functions(template)[name]["Properties"]["Events"].values()
    destination = event["Properties"]["DestinationConfig"]["OnFailure"]
    assert destination["Type"] == "SQS"
    queue_name = destination["Destination"]["Fn::GetAtt"][0]
    queue = template["Resources"][queue_name]
    assert queue["Type"] == "AWS::SQS::Queue"
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    assert queue["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert "sqs:SendMessage" in actions(template, name, destination["Destination"])
    assert actions(template, name, {"Fn::GetAtt": ["Table", "StreamArn"]}) >= {
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
    }
    assert template["Outputs"]["DeadLetterQueueUrl"]["Value"] == {"Ref": queue_name}


# ------------------------------------------------------------------ API, logs, outputs


def test_every_log_is_kept_for_a_bounded_time(template):
    def retained(reference):
        group = template["Resources"][reference]
        return group["Type"] == "AWS::Logs::LogGroup" and "RetentionInDays" in group["Properties"]

    api = template["Resources"]["HttpApi"]["Properties"]
    assert "CorsConfiguration" not in api
    assert retained(api["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0])
    assert "$context.requestId" in api["AccessLogSettings"]["Format"]
    json.loads(re.sub(r"\$context\.\w+(\.\w+)?", "x", api["AccessLogSettings"]["Format"]))
    for name, function in every_function(template).items():
        assert retained(function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]), name


def test_the_outputs_name_what_an_operator_needs(template):
    outputs = template["Outputs"]
    assert outputs["ApiUrl"]["Value"] == {"Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/"}
    assert outputs["TableName"]["Value"] == {"Ref": "Table"}
    assert {
        "DeadLetterQueueUrl",
        "SignInUrl",
        "UserPoolId",
        "OperatorTokenArn",
        "WebhookSecretArn",
        "AlarmTopicArn",
    } <= set(outputs)
    assert resolve(outputs["AlarmTopicArn"]["Value"], template, {}) == {"Ref": "AlarmTopic"}
    pager = "arn:aws:sns:eu-west-1:123456789012:pager"
    assert resolve(outputs["AlarmTopicArn"]["Value"], template, {"AlarmTopicArn": pager}) == pager


# ------------------------------------------------------------------ alarms


def watched(alarm):
    """(metric, resource) an alarm watches: the resource its one dimension names."""
    props = alarm["Properties"]
    (dimension,) = props["Dimensions"]
    value = dimension["Value"]
    return props["MetricName"], value.get("Ref") or value["Fn::GetAtt"][0]


def test_alarms_watch_every_function_the_dead_letters_and_the_stream(template):
    alarms = resources(template, "AWS::CloudWatch::Alarm")
    by_what = {watched(alarm): name for name, alarm in alarms.items()}
    for name, function in functions(template).items():
        for metric in ("Errors", "Throttles"):
            alarm = alarms[by_what[(metric, name)]]
            # it exists wherever its function does
            assert alarm.get("Condition") == function.get("Condition"), (metric, name)
            assert alarm["Properties"]["Namespace"] == "AWS/Lambda" and alarm["Properties"]["Threshold"] == 1
    iterator_age = alarms[by_what[("IteratorAge", fan_out(template))]]["Properties"]
    assert iterator_age["Statistic"] == "Maximum" and iterator_age["Threshold"] <= 5 * 60 * 1000
    dead_letters = alarms[by_what[("ApproximateNumberOfMessagesVisible", "DeadLetterQueue")]]["Properties"]
    assert dead_letters["Namespace"] == "AWS/SQS" and dead_letters["Threshold"] == 1
    assert ("5xx", "HttpApi") in by_what
    for alarm in alarms.values():
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching"  # no traffic is not an outage


def test_each_functions_logs_and_alarms_are_what_scripts_template_writes(template):
    """Every function's log group and its two alarms (and the API's access log) are written by scripts/template.py
    from one table, between two marker lines of template.yaml: after changing the table, run it."""
    script = runpy.run_path(str(ROOT / "scripts" / "template.py"))
    text = TEMPLATE.read_text()
    assert script["written"](text) == text, "template.yaml is not what scripts/template.py writes: run it"
    # every log group, and each function's two alarms
    written = set(yaml.load(script["generated"](), Loader=CloudFormationLoader))
    assert set(resources(template, "AWS::Logs::LogGroup")) <= written
    alarms = {
        f"{name.removesuffix('Function')}{metric}" for name in functions(template) for metric in ("Errors", "Throttles")
    }
    assert written & set(resources(template, "AWS::CloudWatch::Alarm")) == alarms


def test_alarms_notify_a_topic_whatever_the_parameters(template):
    """With neither AlarmEmail nor AlarmTopicArn the alarms still exist, and notify the stack's own topic."""
    alarms = resources(template, "AWS::CloudWatch::Alarm")
    given = "arn:aws:sns:eu-west-1:123456789012:pager"
    for parameters, topic in [({}, {"Ref": "AlarmTopic"}), ({"AlarmTopicArn": given}, given)]:
        for name, alarm in alarms.items():
            props = resolve(alarm["Properties"], template, parameters)
            assert props["AlarmActions"] == props["OKActions"] == [topic], name
        assert ("AlarmTopic" in deployed_resources(template, parameters)) == (topic != given)
    assert "AlarmEmailSubscription" not in deployed_resources(template, {})
    for parameters in (
        {"AlarmEmail": "oncall@shop.example"},
        {"AlarmEmail": "oncall@shop.example", "AlarmTopicArn": given},
    ):
        assert "AlarmEmailSubscription" in deployed_resources(template, parameters)
        subscription = resolve(template["Resources"]["AlarmEmailSubscription"]["Properties"], template, parameters)
        assert subscription["Endpoint"] == "oncall@shop.example" and subscription["Protocol"] == "email"
        assert subscription["TopicArn"] == parameters.get("AlarmTopicArn", {"Ref": "AlarmTopic"})


# ------------------------------------------------------------------ the SAM CLI


SAM_ENV_LOCK = Path(tempfile.gettempdir()) / f"stalwart-sam-env-{hashlib.sha256(bytes(ROOT)).hexdigest()[:8]}.lock"
"""Held while scripts/sam-env runs: two pytest workers (pytest-xdist) must not both install into one .venv-sam."""


def sam_environment():
    """.venv-sam's bin folder (scripts/sam-env makes it on first use), and an environment that keeps it off AWS."""
    with SAM_ENV_LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker's install finishes first; then this run finds it made
        made = subprocess.run([str(ROOT / "scripts" / "sam-env")], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr[-4000:]
    bin_dir = Path(made.stdout.strip().splitlines()[-1])
    env = {
        **os.environ,
        "PYENV_VERSION": "3.11.7:3.13.0",  # python3.13 on PATH through pyenv's shims, for sam build
        "SAM_CLI_TELEMETRY": "0",
        "AWS_DEFAULT_REGION": "us-east-1",  # a region, not an account: nothing here calls AWS
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    return bin_dir, env


@pytest.fixture(scope="module")
def sam_tools():
    return sam_environment()


@pytest.fixture(scope="module")
def sam(sam_tools):
    """Runs a tool of .venv-sam in the repo, offline from AWS."""
    bin_dir, env = sam_tools

    def run(tool, *args):
        done = subprocess.run(
            [str(bin_dir / tool), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, f"{tool} {' '.join(args)}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        return done.stdout + done.stderr

    return run


@pytest.mark.timeout(1200)
def test_sam_cfn_lint_passes(sam):
    sam("cfn-lint", "template.yaml")


@pytest.mark.timeout(1200)
def test_sam_validate_lint_passes(sam):
    assert "is a valid SAM Template" in sam("sam", "validate", "--lint")


TRANSLATE = """
import json, sys
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

template = yaml_parse(open("template.yaml").read())
for resource in template["Resources"].values():
    for key in ("CodeUri", "ContentUri"):
        if key in resource.get("Properties", {}):
            resource["Properties"][key] = "s3://bucket/key"  # what `sam package` puts there

class NoManagedPolicies:
    def load(self):
        return {}

with open(sys.argv[1], "w") as out:
    json.dump(transform(template, {}, NoManagedPolicies()), out)
"""


@pytest.mark.timeout(1200)
def test_sam_puts_each_integration_beside_its_routes_security(sam, template, tmp_path):
    """SAM's own transform (the one CloudFormation runs) adds each function's integration to the operation
    the body names, so the authorizer and the integration are one route, not two."""
    sam("python", "-c", TRANSLATE, str(tmp_path / "transformed.json"))
    transformed = json.loads((tmp_path / "transformed.json").read_text())
    api = transformed["Resources"]["HttpApi"]
    assert api["Type"] == "AWS::ApiGatewayV2::Api" and api["Properties"]["FailOnWarnings"] is True
    for mode, links_alone in [("jwt", "false"), ("jwt", "true"), (NO_AUTHORIZER, "false")]:
        parameters = {"Authentication": mode, "LinksAlone": links_alone} | JWT | LINKS | SLACK
        body = resolve(api["Properties"]["Body"], template, parameters)
        for method, path, name in http_routes(template):
            operation = body["paths"][path][method.lower()]
            assert f"${{{name}.Arn}}" in operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"], (method, path)
            guarded = mode == "jwt" and (method, path) not in public(parameters)
            assert ("security" in operation) == guarded, (parameters, method, path)
        assert ("components" in body) == (mode == "jwt")
        # without a PublicUrl the links function is still there, so its operations keep their integration
        unlinked = resolve(api["Properties"]["Body"], template, {"Authentication": mode} | JWT)["paths"][
            "/links/{link}"
        ]
        assert {method for method, operation in unlinked.items() if "x-amazon-apigateway-integration" in operation} == {
            "get",
            "post",
        }
    assert not [r for r in transformed["Resources"].values() if r["Type"] == "AWS::ApiGatewayV2::Authorizer"]


@pytest.mark.timeout(1200)
def test_sam_build_packs_no_local_store_into_the_agent_layer(sam_tools, tmp_path, monkeypatch):
    """The README's first command keeps its store outside the agent's folder; a store left there by hand (or by an
    older version, which kept runs.db beside agent.yaml) is still never shipped: what `sam build` makes of the
    agent's folder is the layer `sam deploy` uploads."""
    project = tmp_path / "project"
    for part in ("agent-layer", "examples/shop"):
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "template.yaml", project)
    agent = project / "examples" / "shop"
    for stray in ("runs.db", "runs.db-wal", "runs.db-shm", "nested/approvals.db", ".env"):
        (agent / stray).parent.mkdir(exist_ok=True)
        (agent / stray).write_text("pause tokens and signing keys")
    bin_dir, env = sam_tools
    build = tmp_path / "build"
    done = subprocess.run(
        [str(bin_dir / "sam"), "build", "AgentLayer", "--build-dir", str(build)],
        cwd=project,
        env=env | {"PYTHON": sys.executable},  # a Python that imports stalwart_agents, as the project's venv does
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    built = yaml.load((build / "template.yaml").read_text(), Loader=CloudFormationLoader)["Resources"]["AgentLayer"][
        "Properties"
    ]
    layer = (build / built["ContentUri"]).resolve()
    shipped = sorted(str(path.relative_to(layer)) for path in layer.rglob("*") if path.is_file())
    assert shipped == ["agent.yaml", "agent.yaml.built.json", "demo.py", "model.py", "tools.py"]
    monkeypatch.setattr(built_agent, "load_config", None)  # what the build made is loaded, not the file read again
    assert built_agent.load(layer / "agent.yaml") == load_config(layer / "agent.yaml")


@pytest.mark.timeout(1200)
def test_sam_build_makes_the_layer_and_every_function(sam, template, tmp_path):
    build = tmp_path / "build"
    sam("sam", "build", "--build-dir", str(build))
    layer = build / "SharedLayer" / "python"
    assert (layer / "stalwart_agents" / "__init__.py").read_bytes() == (
        ROOT / "shared/stalwart_agents/__init__.py"
    ).read_bytes()
    assert (layer / "stalwart_agents" / "storage" / "dynamodb_schema.py").exists()
    # cel-python's parser built for the runtime's Python, on a build machine that cannot import the arm64 re2, and
    # put where the package looks for it
    parser = layer / "stalwart_agents" / PREBUILT_PARSER.relative_to(Path(stalwart_agents.__file__).parent)
    header = parser.read_bytes().partition(b"\n")[0]
    assert json.loads(header)["python"] == "3.13"
    assert (layer / "fastapi").is_dir() and (layer / "mangum").is_dir()
    assert not (layer / "uvicorn").exists()
    # wheels for the functions' architecture, not the build machine's
    machine = {"arm64": "aarch64", "x86_64": "x86_64"}[template["Globals"]["Function"]["Architectures"][0]]
    (core,) = (layer / "pydantic_core").glob("_pydantic_core.*.so")
    assert f"cpython-313-{machine}-linux" in core.name
    # compiled bytecode for the runtime's Python, beside every module, loaded without checking its source
    for module in [
        *(layer / "stalwart_agents").rglob("*.py"),
        layer / "fastapi" / "applications.py",
        layer / "boto3" / "session.py",
    ]:
        compiled = module.parent / "__pycache__" / f"{module.stem}.cpython-313.pyc"
        assert compiled.exists(), module
        header = compiled.read_bytes()[:16]
        # hash-based, unchecked
        assert header[:4] == MAGIC_313 and int.from_bytes(header[4:8], "little") == 0b01, module
    assert not list(layer.rglob("*.cpython-311.pyc")) and not (layer / "bin").exists()
    for name in functions(template):
        assert (build / name / "app.py").read_text() == (
            ROOT / functions(template)[name]["Properties"]["CodeUri"] / "app.py"
        ).read_text()


# ------------------------------------------------------------------ Slack and mail


MAIL = {"SmtpUsername": EVERYTHING["SmtpUsername"], "SmtpPasswordArn": EVERYTHING["SmtpPasswordArn"]}


def test_slack_is_a_function_of_its_own_behind_no_authorizer_that_may_invoke_itself_and_nothing_else(template):
    slack = {"SlackFunction", "SlackRole", "SlackHandsClicksOn", "SlackLogs", "SlackErrors", "SlackThrottles"}
    assert not slack & deployed_resources(template, EVERYTHING | {"SlackBotTokenArn": "", "SlackSigningSecretArn": ""})
    assert slack <= deployed_resources(template, SLACK)
    # Slack signs its clicks: the route has no security in any mode (test_the_authorizer_guards_every_route...)
    for mode in ("jwt", NO_AUTHORIZER):
        assert "/slack/actions" not in api_body(template, {"Authentication": mode} | JWT | SLACK)["paths"]
    invoking = [s for s in statements(template, "SlackFunction", SLACK) if "lambda:InvokeFunction" in s["Action"]]
    assert invoking == [
        {
            "Sid": "InvokesItself",
            "Effect": "Allow",
            "Action": ["lambda:InvokeFunction"],
            "Resource": {"Fn::GetAtt": ["SlackFunction", "Arn"]},
        }
    ]
    for name in set(every_function(template)) - {"SlackFunction"}:
        assert not any(a.startswith("lambda:") for a in actions(template, name, parameters=EVERYTHING)), name
    # a click handed on is taken once: never retried into a second answer
    function = functions(template)["SlackFunction"]["Properties"]
    assert function["EventInvokeConfig"] == {"MaximumRetryAttempts": 0, "MaximumEventAgeInSeconds": 300}
    assert resolve(template["Outputs"]["SlackRequestUrl"], template, SLACK)["Value"]["Fn::Sub"].endswith(
        "/slack/actions"
    )


def test_the_fan_out_is_deployed_for_a_webhook_slack_or_mail_and_not_for_none(template):
    for parameters in ({"WebhookUrl": LINKS["WebhookUrl"]}, SLACK, MAIL):
        assert {"FanOutFunction", "FanOutRole", "DeadLetterQueue", "DeadLetters"} <= deployed_resources(
            template, parameters
        ), parameters
        assert environment(template, fan_out(template), parameters).get("STALWART_WEBHOOK_URL") == parameters.get(
            "WebhookUrl"
        )
    assert "FanOutFunction" not in deployed_resources(template, {})
    # links travel in Slack messages and mails too
    assert broken_rules(template, SLACK | {"PublicUrl": LINKS["PublicUrl"]}) == []
    assert broken_rules(template, MAIL | {"PublicUrl": LINKS["PublicUrl"]}) == []


def test_slack_and_mail_take_their_secrets_in_pairs(template):
    for given, other in (
        ("SlackBotTokenArn", "SlackSigningSecretArn"),
        ("SlackSigningSecretArn", "SlackBotTokenArn"),
        ("SmtpUsername", "SmtpPasswordArn"),
        ("SmtpPasswordArn", "SmtpUsername"),
    ):
        (told,) = broken_rules(template, {given: (SLACK | MAIL)[given]})
        assert other in told, (given, told)
    assert broken_rules(template, SLACK | MAIL) == []
