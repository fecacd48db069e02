"""The pages' scripts and style sheets are package data files, inlined when a page is rendered
(one self-contained file, no external resource), refused when they could end their element
early, and linted with eslint (tools/eslint-check)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.records import html_template
from arena.records.html_template import read_asset
from arena.web import page_assets

ROOT = Path(__file__).resolve().parents[2]
ESLINT = ROOT / "tools" / "node_modules" / ".bin" / "eslint"


def test_every_asset_is_inlined_whole_in_its_page():
    from arena.records import render_html
    from arena.records import record_from_result
    from tests.records.helpers import play
    page = render_html(record_from_result(play("sergeant-major", seed=3, hand_cap=1)))
    assert html_template.script() in page and html_template.style() in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", page)


def test_an_asset_that_would_close_its_element_is_refused(tmp_path, monkeypatch):
    pkg = tmp_path / "fakepkg"
    (pkg / "assets").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "assets" / "bad.js").write_text('var x = "</SCRIPT><img src=x>";\n')
    (pkg / "assets" / "ok.js").write_text('var y = "<\\/script>";\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="cannot be inlined"):
        read_asset("fakepkg", "bad.js")
    assert read_asset("fakepkg", "ok.js").startswith("var y")


def test_the_live_pages_assets_load():
    assert "EventSource" in page_assets.script()
    assert "{{ script }}" in page_assets.page_template()


@pytest.mark.skipif(not ESLINT.exists() or shutil.which("node") is None,
                    reason="eslint is not installed (npm ci --prefix tools)")
def test_eslint_passes_on_the_assets_and_catches_a_mistake():
    ok = subprocess.run([str(ROOT / "tools" / "eslint-check")], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # the same rules flag a script that uses an undeclared name and compares loosely
    probe = '(function () {\n  "use strict";\n  if (undeclared == 1) { return; }\n})();\n'
    got = subprocess.run([str(ESLINT), "--config", "tools/eslint.config.mjs", "--stdin",
                          "--stdin-filename", "arena/web/assets/probe.js"], input=probe,
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert got.returncode == 1
    assert "no-undef" in got.stdout and "eqeqeq" in got.stdout
