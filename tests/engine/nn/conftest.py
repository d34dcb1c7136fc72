"""Fixtures of the network tests."""

from tests.engine.nn.compile_fakes import fake_compiles

__all__ = ["fake_compiles"]
