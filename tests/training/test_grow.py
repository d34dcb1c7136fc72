"""engine grow: a network grown to more blocks and filters plays as it did, and its new parts learn."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from engine.cli import main
from engine.nn.model_file import load_model, read_info
from training.grow import grow_model
from training.models import BootstrapConfig, random_model


def _trained_like(heads: str, aux_heads: tuple[str, ...] = ("ownership", "score"), seed: int = 3):
    """A random 7x7 Go network whose batch norms hold statistics and scales of their own, as training leaves
    them (a fresh network's are the identity, which would hide a batch norm copied wrongly)."""
    model = random_model(BootstrapConfig("go", 7, "elevenplane", 2, 8, heads, seed, aux_heads), 11)
    generator = torch.Generator().manual_seed(seed)
    for module in model.net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            for tensor, low in ((module.running_mean, -1), (module.running_var, 0.5), (module.weight, 0.5),
                                (module.bias, -0.5)):
                tensor.data.copy_(low + torch.rand(tensor.shape, generator=generator))
    return model


def _planes(count: int = 6) -> torch.Tensor:
    return torch.rand(count, 11, 7, 7, generator=torch.Generator().manual_seed(1)).round()


@pytest.mark.parametrize("heads", ["pooled", "fc"])
def test_grown_network_gives_the_same_outputs(heads: str) -> None:
    model = _trained_like(heads)
    grown = grow_model(model, 4, 13, noise=0.0)
    assert (grown.net.config.blocks, grown.net.config.filters) == (4, 13)
    assert grown.info.config == grown.net.config and grown.info.generation == model.info.generation
    with torch.no_grad():
        before, after = model.net.eval()(_planes()), grown.net.eval()(_planes())
    for name, old, new in zip(before._fields, before, after):
        torch.testing.assert_close(new, old, atol=1e-5, rtol=1e-4, msg=f"{name} changed")


def test_noise_sets_the_copies_apart_and_barely_moves_the_outputs() -> None:
    model = _trained_like("pooled")
    grown = grow_model(model, 2, 16, noise=0.01)
    exact = grow_model(model, 2, 16, noise=0.0).net.stem[0].weight
    stem = grown.net.stem[0].weight
    assert all(any(torch.equal(exact[new], exact[old]) for old in range(8)) for new in range(8, 16))
    assert not any(torch.equal(stem[new], stem[old]) for new in range(8, 16) for old in range(8))
    torch.testing.assert_close(stem[:8], model.net.stem[0].weight)   # the originals stay exact
    with torch.no_grad():
        before, after = model.net.eval()(_planes()), grown.net.eval()(_planes())
    assert not torch.equal(before.policy, after.policy)
    torch.testing.assert_close(after.value, before.value, atol=0.05, rtol=0)


def test_new_blocks_learn() -> None:
    """A new block starts as the identity but its scale gets gradients (it is not stuck at zero)."""
    grown = grow_model(_trained_like("pooled"), 3, 8, noise=0.0)
    net = grown.net.train()
    output = net(_planes())
    (output.policy.logsumexp(1).sum() + output.value.sum()).backward()
    assert float(net.tower[2].second[1].weight.grad.abs().sum()) > 0


def test_shrinking_is_refused() -> None:
    model = _trained_like("pooled")
    with pytest.raises(ValueError, match="at least 2 blocks of 8 filters"):
        grow_model(model, 1, 16)
    with pytest.raises(ValueError, match="at least 2 blocks of 8 filters"):
        grow_model(model, 3, 4)


def test_grow_command(tmp_path: Path) -> None:
    from engine import save_model

    source = save_model(tmp_path / "small.safetensors", _trained_like("pooled"))
    runner = CliRunner()
    result = runner.invoke(main, ["grow", str(source), str(tmp_path / "big.safetensors"), "--blocks", "3",
                                  "--filters", "12", "--noise", "0"])
    assert result.exit_code == 0, result.output
    assert read_info(tmp_path / "big.safetensors").config.name == "b3c12-pooled"
    grown = load_model(tmp_path / "big.safetensors")
    with torch.no_grad():
        torch.testing.assert_close(grown.net(_planes()).value, load_model(source).net(_planes()).value,
                                   atol=1e-5, rtol=1e-4)
    refused = runner.invoke(main, ["grow", str(source), str(tmp_path / "small2.safetensors"), "--blocks", "1",
                                   "--filters", "8"])
    assert refused.exit_code != 0 and "at least 2 blocks" in refused.output
    assert not (tmp_path / "small2.safetensors").exists()
