"""Third-party readers: the ``ranktrust.readers`` entry-point group, and the Reader protocol they follow."""

from __future__ import annotations

import textwrap

import pytest

import ranktrust as rt
from ranktrust.data.readers import _registry

PLUGIN = textwrap.dedent('''
    import os

    import pandas as pd


    class DotReader:
        """Rows written as ``model.item = score`` lines in ``*.dots`` files."""

        name = "dots"
        priority = 50
        description = "model.item = score lines"
        looks_for = "*.dots files"

        def sniff(self, path):
            if os.path.isdir(path):
                return any(f.endswith(".dots") for f in os.listdir(path))
            return path.endswith(".dots")

        def units(self, path):
            return sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".dots"))

        def read(self, unit, opts):
            rows = []
            with open(unit) as fh:
                for line in fh:
                    key, _, score = line.partition("=")
                    model, _, item = key.strip().partition(".")
                    rows.append((model, item, float(score)))
            df = pd.DataFrame(rows, columns=["model", "item", "score"])
            df.attrs["line_numbers"] = False
            yield df
''')


def _distribution(root, name, entry_points):
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ranktrust.readers]\n" + entry_points + "\n")


@pytest.fixture
def fresh_registry(monkeypatch):
    """Plug-ins are loaded once per process: load them again for this test; monkeypatch puts the registry
    (without this test's plug-in) and the loaded flag back afterwards."""
    monkeypatch.setattr(_registry, "_PLUGINS_LOADED", False)
    monkeypatch.setattr(_registry, "_READERS", dict(_registry._READERS))


def test_builtin_readers_follow_the_protocol():
    for name, cls in _registry.readers().items():
        assert isinstance(cls(), _registry.Reader), name


def test_entry_point_reader_is_found_sniffed_and_read(tmp_path, monkeypatch, fresh_registry):
    (tmp_path / "dots_plugin.py").write_text(PLUGIN)
    _distribution(tmp_path, "dots_plugin", "dots = dots_plugin:DotReader")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.dots").write_text("m1.q1 = 1\nm1.q2 = 0\n")
    (data / "b.dots").write_text("m2.q1 = 0\nm2.q2 = 0\n")
    assert "dots" in _registry.readers()
    assert _registry.sniff(str(data)).name == "dots"
    m = rt.read(str(data))
    assert m.models == ("m1", "m2") and m.items == ("q1", "q2")
    assert m.scores.tolist() == [[1.0, 0.0], [0.0, 0.0]]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(rt.DataError, match=r"empty: no \*\.dots files found in this folder"):
        rt.read(str(empty), format="dots")


def test_broken_plugin_is_one_warning_not_a_crash(tmp_path, monkeypatch, fresh_registry):
    _distribution(tmp_path, "broken_plugin", "broken = no_such_module_xyz:Reader")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(rt.errors.RanktrustWarning, match=r"reader plug-in 'broken' \(no_such_module_xyz:Reader\) was not loaded"):
        regs = _registry.readers()
    assert "broken" not in regs and "lm_eval" in regs
