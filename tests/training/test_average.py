"""engine average: the weighted mean of networks of one shape, and a clear refusal of networks that differ."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from engine.cli import main
from engine.nn.model_file import load_model, save_model
from training.average import average_models
from training.models import BootstrapConfig, random_model


def _model(seed: int, filters: int = 8, generation: int = 1, encoder: str = "elevenplane"):
    planes = {"elevenplane": 11, "fifteenplane": 15}[encoder]
    config = BootstrapConfig("go", 7, encoder, 2, filters, "pooled", seed, ("ownership", "score"))
    model = random_model(config, planes).with_generation(generation, 100 * generation)
    for module in model.net.modules():   # batch norms with statistics of their own, as training leaves them
        if isinstance(module, torch.nn.BatchNorm2d):
            generator = torch.Generator().manual_seed(seed)
            module.running_mean.copy_(torch.randn(module.running_mean.shape, generator=generator))
            module.running_var.copy_(0.5 + torch.rand(module.running_var.shape, generator=generator))
            module.num_batches_tracked.fill_(100 * seed)
    return model


def test_the_average_is_the_weighted_mean_of_every_tensor() -> None:
    first, second = _model(1, generation=3), _model(2, generation=5)
    averaged = average_models([first, second], weights=[3, 1])
    state, a, b = averaged.net.state_dict(), first.net.state_dict(), second.net.state_dict()
    for name, tensor in state.items():
        if tensor.is_floating_point():
            torch.testing.assert_close(tensor, 0.75 * a[name] + 0.25 * b[name], msg=name)
    assert int(state["stem.1.num_batches_tracked"]) == 200
    assert (averaged.info.generation, averaged.info.training_steps) == (5, 500)
    assert averaged.info.config == first.info.config
    assert not torch.equal(state["stem.0.weight"], a["stem.0.weight"])


def test_the_average_of_copies_plays_as_the_network() -> None:
    model = _model(4)
    averaged = average_models([model, _model(4), model])
    planes = torch.rand(5, 11, 7, 7, generator=torch.Generator().manual_seed(0)).round()
    with torch.no_grad():
        before, after = model.net.eval()(planes), averaged.net(planes)
    for name, old, new in zip(before._fields, before, after):
        torch.testing.assert_close(new, old, msg=f"{name} changed")


@pytest.mark.parametrize(("other", "weights", "message"), [
    (lambda: _model(2, filters=12), None, "cannot average a b2c12"),
    (lambda: _model(2, encoder="fifteenplane"), None, "encoder fifteenplane"),
    (lambda: _model(2), [1.0], "1 weights for 2 models"),
    (lambda: _model(2), [1.0, -1.0], "weights must be >= 0"),
    (lambda: _model(2), [0.0, 0.0], "not all 0"),
])
def test_networks_that_do_not_fit_are_refused(other, weights, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        average_models([_model(1), other()], weights)


def test_the_command_writes_the_average_and_refuses_a_mismatch(tmp_path: Path) -> None:
    paths = [save_model(tmp_path / f"m{seed}.safetensors", _model(seed)) for seed in (1, 2)]
    out = tmp_path / "soup.safetensors"
    result = CliRunner().invoke(main, ["average", *map(str, paths), "-o", str(out), "--weights", "1,1"])
    assert result.exit_code == 0, result.output
    expected = average_models([load_model(path) for path in paths]).net.state_dict()
    for name, tensor in load_model(out).net.state_dict().items():
        torch.testing.assert_close(tensor, expected[name], msg=name)

    wide = save_model(tmp_path / "wide.safetensors", _model(3, filters=12))
    refused = CliRunner().invoke(main, ["average", str(paths[0]), str(wide), "-o", str(tmp_path / "bad.safetensors")])
    assert refused.exit_code != 0 and "cannot average" in refused.output and "wide.safetensors" in refused.output
    assert not (tmp_path / "bad.safetensors").exists()
    malformed = CliRunner().invoke(main, ["average", *map(str, paths), "-o", str(out), "--weights", "1,x"])
    assert malformed.exit_code != 0 and "expected numbers separated by commas" in malformed.output
