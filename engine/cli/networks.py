"""``engine convert-lz`` and ``engine export-lz``: Leela Zero weights to a model file and back.

Thin commands over :mod:`engine.nn.leela`; a file that does not fit is reported
with the message that names the line or the mismatch.
"""

from __future__ import annotations

import click

__all__ = ["convert_command", "export_command"]


@click.command("convert-lz")
@click.argument("weights", type=click.Path(exists=True, dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
def convert_command(weights: str, out: str) -> None:
    """Convert Leela Zero WEIGHTS (text or gzipped, version 1 or 2) to the model file OUT.

    Not needed to play them: --model takes the weights file and keeps its conversion in the cache.
    """
    from engine.nn.leela import read_leela
    from engine.nn.model_file import ModelFormatError, save_model

    try:
        model = read_leela(weights)
    except ModelFormatError as error:
        raise click.ClickException(str(error)) from error
    save_model(out, model)
    value = "black's" if model.net.config.value_black_plane is not None else "the side to move's"
    click.echo(f"{weights}: {model.net.config.name}, value for {value} -> {out}", err=True)


@click.command("export-lz")
@click.argument("model_path", metavar="MODEL", type=click.Path(exists=True, dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
def export_command(model_path: str, out: str) -> None:
    """Write MODEL (19x19 go, fc heads, encoder lz18) as Leela Zero weights OUT (gzipped if it ends in .gz).

    Leela Zero plays it with leelaz -w OUT; the ownership and score heads, which it lacks, are left out.
    """
    from engine.nn.leela import write_leela
    from engine.nn.loading import load_model
    from engine.nn.model_file import ModelFormatError

    try:
        model = load_model(model_path)
        write_leela(out, model)
    except ModelFormatError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"{model_path}: {model.net.config.name} -> {out} (Leela Zero weights)", err=True)
