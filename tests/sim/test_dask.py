"""The same chunks on a Dask cluster give the same numbers as local workers (same seed)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from distributed import Client, LocalCluster
from typer.testing import CliRunner

from caltrop.cli import app
from caltrop.sim.overrides import parse_variant
from caltrop.sim.runner import Records, simulate
from tests.sim.tiny import skirmish

VARIANTS = [parse_variant("load_reset=turn"), parse_variant("load_reset=round")]
TACTICAL = {"pc": "tactical", "npc": "tactical"}


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as c:
        yield c


def test_dask_client_gives_the_local_numbers(cluster: LocalCluster) -> None:
    local = simulate(skirmish(), VARIANTS, TACTICAL, n=40, seed=21, workers=1)
    with Client(cluster) as client:
        remote = simulate(skirmish(), VARIANTS, TACTICAL, n=40, seed=21, dask=client, chunk=9)
    for a, b in zip(local.runs, remote.runs, strict=True):
        for name in Records.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(a.records, name), getattr(b.records, name))


def test_cli_dask_address_gives_the_local_numbers(cluster: LocalCluster) -> None:
    args = ["sim", "orc-bridge", "--variant", "load_reset=round", "--n", "10", "--seed", "4"]
    runner = CliRunner()
    local = runner.invoke(app, [*args, "--workers", "1", "--json"])
    remote = runner.invoke(app, [*args, "--dask", cluster.scheduler_address, "--json"])
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    assert json.loads(local.stdout) == json.loads(remote.stdout)
