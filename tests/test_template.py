"""The SAM application (template.yaml): read as data, then linted and built by the SAM CLI.

The test_sam_* tests run cfn-lint, `sam validate --lint` and `sam build`, from the virtual
environment scripts/sam-env makes (aws-sam-cli pins boto3, so it lives apart). They need
no AWS account and no Docker; the first run installs aws-sam-cli from PyPI, and the build
needs python3.13 (PYENV_VERSION makes pyenv's visible) and PyPI for the layer's wheels.
"""

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from stalwart_agents.lambdas import AUTHS
from stalwart_agents.serve import make_app
from stalwart_agents.storage.dynamodb_schema import TABLE, TTL_ATTRIBUTE

from .conftest import SHOP

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"

# The chapter's routes, by the name stalwart_agents.lambdas.handler() takes.
ROUTES = {
    "interface": ("GET", "/"),
    "messages": ("POST", "/threads/{id}/messages"),
    "interrupts": ("GET", "/threads/{id}/interrupts"),
    "resume": ("POST", "/threads/{id}/resume"),
    "stream": ("GET", "/threads/{id}/stream"),
    "rollback": ("POST", "/threads/{id}/rollback"),
    "feedback": ("POST", "/threads/{id}/feedback"),
    "healthz": ("GET", "/healthz"),
    "config": ("GET", "/config.json"),
}
BUNDLE = {"interface": [("GET", "/agent-ui.js")]}
"""The interface's function also serves the built web components it loads."""
PUBLIC = {("GET", "/"), ("GET", "/agent-ui.js"), ("GET", "/healthz"), ("GET", "/config.json"), ("GET", "/threads/{id}/stream")}
"""Routes API Gateway lets through without a token: the interface, and the stream a browser's EventSource
opens without headers (the service checks the stream ticket in its query instead)."""
NO_AUTHORIZER = "none-anyone-on-the-internet-may-act"
ISSUER = "https://id.example/realms/shop"
JWT = {"JwtIssuer": ISSUER, "JwtAudience": "stalwart,stalwart-mobile"}
READ_ONLY = {"interface", "config", "healthz", "interrupts", "stream"}
TRANSACT = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}
SECRETS = {"QLS_OPERATOR_TOKEN": "rollback", "STALWART_RESUME_SECRET": "resume"}
WEBHOOK = {"STALWART_WEBHOOK_URL", "STALWART_WEBHOOK_SECRET"}


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


def statements(template, name):
    """Every IAM statement a function gets: its inline Policies, or those of its in-template Role."""
    props = functions(template)[name]["Properties"]
    if "Role" in props:
        role = template["Resources"][props["Role"]["Fn::GetAtt"][0]]
        assert role["Type"] == "AWS::IAM::Role"
        return [s for policy in role["Properties"]["Policies"] for s in policy["PolicyDocument"]["Statement"]]
    policies = props.get("Policies", [])
    # a string or a SAM policy template here would be a managed policy: none is narrow enough
    assert all(isinstance(p, dict) and "Statement" in p for p in policies), name
    return [s for p in policies for s in p["Statement"]]


def as_list(value):
    return value if isinstance(value, list) else [value]


def actions(template, name, resource=None):
    """The actions a function may take (on ``resource`` only, where given)."""
    return {a for s in statements(template, name) if resource is None or s["Resource"] == resource for a in as_list(s["Action"])}


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

    Ref to a parameter, Fn::If, Fn::Equals, Fn::Not and Fn::Split are resolved and AWS::NoValue removed; a Ref
    to a resource, Fn::Sub and Fn::GetAtt are left as they are, for CloudFormation to resolve at deploy time.
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
            if key == "Fn::Equals":
                return walk(value[0]) == walk(value[1])
            if key == "Fn::Not":
                return not walk(value[0])
            if key == "Fn::Split":
                return walk(value[1]).split(value[0])
        return {k: v for k, v in ((k, walk(v)) for k, v in node.items()) if v is not NO_VALUE}

    return walk(node)


def broken_rules(template, parameters):
    """The AssertDescription of each rule assertion these parameters break (deploying them fails with it)."""
    broken = []
    for rule in template["Rules"].values():
        if resolve(rule.get("RuleCondition", True), template, parameters):
            broken += [a["AssertDescription"] for a in rule["Assertions"] if not resolve(a["Assert"], template, parameters)]
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


def fan_out(template):
    (name,) = [n for n, f in functions(template).items() if any(e["Type"] == "DynamoDB" for e in f["Properties"]["Events"].values())]
    return name


# ------------------------------------------------------------------ routes and handlers


def test_every_route_of_the_chapter_has_exactly_one_function(template):
    served = {}
    for name, function in functions(template).items():
        for event in function["Properties"]["Events"].values():
            if event["Type"] == "HttpApi":
                assert event["Properties"]["ApiId"] == {"Ref": "HttpApi"}, name
                served.setdefault(route_of(function), []).append((event["Properties"]["Method"], event["Properties"]["Path"]))
    assert served == {route: [method_path] + BUNDLE.get(route, []) for route, method_path in ROUTES.items()}


def test_the_deployed_routes_are_the_services_routes():
    app = make_app(SHOP, storage="memory://")
    app.state.desk.close()
    service = {(method, re.sub(r"\{\w+\}", "{id}", r.path)) for r in app.routes if isinstance(r, APIRoute) for method in r.methods}
    assert service == set(ROUTES.values()) | {path for paths in BUNDLE.values() for path in paths}


def test_each_handler_is_a_few_lines_that_name_their_own_route(template):
    named = {route_of(f) for f in functions(template).values()}
    on_disk = {p.name for p in (ROOT / "functions").iterdir() if p.is_dir()}
    assert named == on_disk == set(ROUTES) | {"fanout"}
    for function in functions(template).values():
        assert function["Properties"]["CodeUri"] == f"functions/{route_of(function)}/"
        source = (ROOT / "functions" / route_of(function) / "app.py").read_text()
        assert len(source.splitlines()) <= 5
        if route_of(function) == "fanout":
            assert "from stalwart_agents.fanout import handler" in source
        else:
            assert "from stalwart_agents.lambdas import handler" in source
            assert f'handler = handler("{route_of(function)}")' in source
    assert template["Globals"]["Function"]["Handler"] == "app.handler"


# ------------------------------------------------------------------ who may call


def test_the_authorizer_guards_every_route_but_the_public_ones(template):
    body = api_body(template, {"Authentication": "jwt"} | JWT)
    routes = {(method, path) for method, path, _ in http_routes(template)}
    assert PUBLIC < routes
    for method, path in routes:
        operation = body["paths"].get(path, {}).get(method.lower(), {})
        assert ("security" in operation) == ((method, path) not in PUBLIC), (method, path)
        if "security" in operation:
            assert operation["security"] == [{"StalwartJwt": []}], (method, path)
    # every operation the body names is a route a function serves: SAM adds its integration there
    assert {(m.upper(), path) for path, ops in body["paths"].items() for m in ops} <= routes


def test_the_authorizer_checks_the_providers_tokens(template):
    scheme = api_body(template, {"Authentication": "jwt"} | JWT)["components"]["securitySchemes"]["StalwartJwt"]
    assert scheme["type"] == "oauth2"
    assert scheme["x-amazon-apigateway-authorizer"] == {
        "type": "jwt",
        "identitySource": "$request.header.Authorization",
        "jwtConfiguration": {"issuer": ISSUER, "audience": ["stalwart", "stalwart-mobile"]},
    }
    # an import warning (a security entry API Gateway could not apply) fails the deploy, never opens a route
    assert template["Resources"]["HttpApi"]["Properties"]["FailOnWarnings"] is True
    assert "Auth" not in template["Resources"]["HttpApi"]["Properties"]


def test_jwt_is_the_default_and_needs_an_issuer_and_an_audience(template):
    parameter = template["Parameters"]["Authentication"]
    assert parameter["Default"] == "jwt" and parameter["AllowedValues"] == ["jwt", NO_AUTHORIZER]
    issuer_missing, audience_missing = broken_rules(template, {})  # a bare `sam deploy` fails, saying why
    assert "JwtIssuer" in issuer_missing and "JwtAudience" in audience_missing
    assert all(f"Authentication={NO_AUTHORIZER}" in told for told in (issuer_missing, audience_missing))
    assert broken_rules(template, {"JwtIssuer": ISSUER}) == [audience_missing]
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
    refused = ("*", "https://*.shop.example", "https://shop.example/", "https://a.example, https://b.example", "null", "file://x")
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
            headers={"Origin": "https://shop.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
        )
        answer = client.get("/healthz", headers={"Origin": "https://shop.example"})
    app.state.desk.close()

    def listed(header):
        return {h.strip().lower() for h in header.split(",")}

    assert {m.lower() for m in cors["allowMethods"]} == listed(preflight.headers["access-control-allow-methods"])
    assert set(cors["allowHeaders"]) == listed(preflight.headers["access-control-allow-headers"]) - {"accept", "accept-language", "content-language"}
    assert cors["maxAge"] == int(preflight.headers["access-control-max-age"])
    assert set(cors["exposeHeaders"]) == listed(answer.headers["access-control-expose-headers"])
    assert "allowCredentials" not in cors


# ------------------------------------------------------------------ layers and runtime


def test_the_layers_hold_the_package_and_the_shop_agent(template):
    shared, agent = template["Resources"]["SharedLayer"], template["Resources"]["AgentLayer"]
    architectures = template["Globals"]["Function"]["Architectures"]
    assert template["Globals"]["Function"]["Runtime"] == "python3.13"
    assert shared["Properties"]["ContentUri"] == "shared/"
    assert shared["Metadata"] == {"BuildMethod": "python3.13", "BuildArchitecture": architectures[0]}
    assert (ROOT / "shared" / "stalwart_agents" / "__init__.py").exists()
    assert agent["Properties"]["ContentUri"] == "examples/shop/" and "Metadata" not in agent
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
    # no uvicorn (mangum runs the app) and no PyJWT (API Gateway verifies tokens; test_lambda checks it is never imported)
    runtime = {name(r) for r in project["project"]["dependencies"]} - {"uvicorn", "pyjwt"}
    assert {name(r) for r in pinned} == runtime | {"mangum", "boto3"}


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


def test_the_secret_parameters_are_noecho_and_empty_unless_given(template):
    parameters = template["Parameters"]
    assert set(parameters) >= {"WebhookUrl", "WebhookSecret", "OperatorToken", "ResumeSecret", "AgentName"}
    for secret in ("WebhookSecret", "OperatorToken", "ResumeSecret"):
        assert parameters[secret]["NoEcho"] is True, secret
    for name in ("WebhookUrl", "WebhookSecret", "OperatorToken", "ResumeSecret", "AgentName"):
        assert parameters[name]["Type"] == "String" and parameters[name]["Default"] == "", name
    assert not parameters["WebhookUrl"].get("NoEcho")


def test_each_secret_reaches_only_the_function_that_needs_it(template):
    fanout = fan_out(template)
    for name, function in functions(template).items():
        env = variables(function)
        for variable, route in SECRETS.items():
            assert (variable in env) == (route_of(function) == route), (name, variable)
        assert WEBHOOK & set(env) == (WEBHOOK if name == fanout else set()), name
    assert not (set(SECRETS) | WEBHOOK) & set(template["Globals"]["Function"]["Environment"]["Variables"])
    # and the parameters themselves are named nowhere else
    by_route = {route_of(f): n for n, f in functions(template).items()}
    assert where_named(template, "OperatorToken") == {by_route["rollback"]}
    assert where_named(template, "ResumeSecret") == {by_route["resume"]}
    assert where_named(template, "WebhookSecret") == where_named(template, "WebhookUrl") == {fanout}


# ------------------------------------------------------------------ least privilege


def test_no_policy_grants_a_wildcard_action_or_resource(template):
    for name in functions(template):
        for statement in statements(template, name):
            assert statement["Effect"] == "Allow", name
            assert not any("*" in action for action in as_list(statement["Action"])), (name, statement)
            assert all(r != "*" and r != {"Fn::Sub": "*"} for r in as_list(statement["Resource"])), (name, statement)
            assert "NotAction" not in statement and "NotResource" not in statement, name


def test_each_function_gets_only_what_its_route_does_to_the_table(template):
    table, index = {"Fn::GetAtt": ["Table", "Arn"]}, {"Fn::Sub": "${Table.Arn}/index/by_id"}
    fanout = fan_out(template)
    for name, function in functions(template).items():
        granted = actions(template, name)
        assert not granted & {"dynamodb:DeleteItem", "dynamodb:Scan", "dynamodb:BatchWriteItem", "dynamodb:DeleteTable"}, name
        if name == fanout:
            assert actions(template, name, table) == {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"}
            continue
        on_table = actions(template, name, table)
        assert "dynamodb:GetItem" in on_table, name  # every cold start reads the session key
        assert all(s["Resource"] in (table, index) for s in statements(template, name)), name
        if route_of(function) in READ_ONLY:
            assert not on_table & {"dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}, name
            # it may write one item only: the session key, K#session, on a first start
            for statement in statements(template, name):
                if "dynamodb:PutItem" in as_list(statement["Action"]):
                    assert statement["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["K#*"]}}, name
            assert "dynamodb:PutItem" in on_table, name
        else:
            assert on_table >= TRANSACT | {"dynamodb:GetItem", "dynamodb:Query"}, name
        assert (actions(template, name, index) != set()) == (route_of(function) == "resume"), name
        assert not any(a.startswith(("sqs:", "dynamodb:GetRecords")) for a in granted), name


# ------------------------------------------------------------------ the fan-out


def _matches(pattern, record):
    """The subset of Lambda's filter rule syntax the template uses: exact values and prefix."""
    for key, rule in pattern.items():
        if isinstance(rule, dict):
            if not isinstance(record.get(key), dict) or not _matches(rule, record[key]):
                return False
            continue
        value = record.get(key)
        for option in rule:
            if isinstance(option, dict):
                assert set(option) == {"prefix"}, f"a filter operator this test does not know: {option}"
                if isinstance(value, str) and value.startswith(option["prefix"]):
                    break
            elif value == option:
                break
        else:
            return False
    return True


def _record(event, pk, sk):
    keys = {"pk": {"S": pk}, "sk": {"S": sk}}
    return {"eventName": event, "eventSource": "aws:dynamodb", "dynamodb": {"Keys": keys, "NewImage": dict(keys), "StreamViewType": "NEW_IMAGE"}}


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
    patterns = [json.loads(f["Pattern"]) for f in props["FilterCriteria"]["Filters"]]

    def delivered(record):
        return any(_matches(p, record) for p in patterns)

    assert delivered(_record("INSERT", "R#run-1", "P#pause-1"))
    assert not delivered(_record("MODIFY", "R#run-1", "P#pause-1"))  # a claim, or a delivery recorded
    assert not delivered(_record("REMOVE", "R#run-1", "P#pause-1"))  # TTL
    for pk, sk in [("R#run-1", "RUN"), ("R#run-1", "J#key"), ("T#u-17", "THREAD"), ("T#u-17", "E#000000000001"), ("K#session", "SECRET")]:
        assert not delivered(_record("INSERT", pk, sk)), (pk, sk)


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
    for name, function in functions(template).items():
        assert retained(function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]), name


def test_the_outputs_name_the_api_the_table_and_the_queue(template):
    outputs = template["Outputs"]
    assert outputs["ApiUrl"]["Value"] == {"Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/"}
    assert outputs["TableName"]["Value"] == {"Ref": "Table"}
    assert "DeadLetterQueueUrl" in outputs


# ------------------------------------------------------------------ the SAM CLI


@pytest.fixture(scope="module")
def sam():
    """Runs a tool of .venv-sam (made on first use by scripts/sam-env) in the repo, offline from AWS."""
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

    def run(tool, *args):
        done = subprocess.run([str(bin_dir / tool), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
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
    for mode in ("jwt", NO_AUTHORIZER):
        body = resolve(api["Properties"]["Body"], template, {"Authentication": mode} | JWT)
        for method, path, name in http_routes(template):
            operation = body["paths"][path][method.lower()]
            assert f"${{{name}.Arn}}" in operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"], (method, path)
            assert ("security" in operation) == (mode == "jwt" and (method, path) not in PUBLIC), (mode, method, path)
        assert ("components" in body) == (mode == "jwt")
    assert not [r for r in transformed["Resources"].values() if r["Type"] == "AWS::ApiGatewayV2::Authorizer"]


@pytest.mark.timeout(1200)
def test_sam_build_makes_the_layer_and_every_function(sam, template, tmp_path):
    build = tmp_path / "build"
    sam("sam", "build", "--build-dir", str(build))
    layer = build / "SharedLayer" / "python"
    assert (layer / "stalwart_agents" / "__init__.py").read_bytes() == (ROOT / "shared/stalwart_agents/__init__.py").read_bytes()
    assert (layer / "stalwart_agents" / "storage" / "dynamodb_schema.py").exists()
    assert (layer / "fastapi").is_dir() and (layer / "mangum").is_dir()
    assert not (layer / "uvicorn").exists()
    # wheels for the functions' architecture, not the build machine's
    machine = {"arm64": "aarch64", "x86_64": "x86_64"}[template["Globals"]["Function"]["Architectures"][0]]
    (core,) = (layer / "pydantic_core").glob("_pydantic_core.*.so")
    assert f"cpython-313-{machine}-linux" in core.name
    for name in functions(template):
        assert (build / name / "app.py").read_text() == (ROOT / functions(template)[name]["Properties"]["CodeUri"] / "app.py").read_text()
