"""Hostile input, generated from the service's own OpenAPI document: no 5xx, no answer that breaks its schema."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    storage = f"sqlite:///{tmp_path_factory.mktemp('schema') / 'runs.db'}"
    with serving(make_app(SHOP, storage=storage, stream_mode="once", operator_token="schema-operator")) as base:
        yield base


@pytest.fixture(scope="module")
def api_schema(api):
    return schemathesis.openapi.from_url(f"{api}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_route_fails_or_answers_outside_its_schema(case):
    case.call_and_validate()
