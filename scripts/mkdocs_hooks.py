"""MkDocs hooks (mkdocs.yml ``hooks:``): the notebooks of ``notebooks/`` as tutorial pages.

* ``on_files``: every ``notebooks/*.ipynb`` joins the site as ``notebooks/<name>.ipynb`` without
  being copied into ``docs/`` (it runs before mkdocs-jupyter's own ``on_files``, which then renders
  them; the notebooks are stored with their outputs, so nothing is executed). A notebook that the
  ``Tutorials`` section of the nav does not list yet is appended to it, in name order.
* ``on_page_content``: the notebooks link to repository files as GitHub shows them
  (``../docs/rules.md#c5``). Such a link to a page of the site is rewritten to that page's URL;
  any other relative link (a missing page, a source file outside the site) is a warning, and so
  (``on_post_build``, once every page is rendered) is an anchor the target page lacks: ``mkdocs
  build --strict`` fails on them as it does for the Markdown pages.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.euchre_env")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = "notebooks"
DOCS = "docs"
TUTORIALS = "Tutorials"  # the nav section that lists the notebooks
HREF = re.compile(r'href="([^"#:?]*\.(?:md|ipynb|png|py|txt))(#[^"]*)?"')
_ANCHORS: list[tuple[str, File, str]] = []  # (notebook, target file, anchor) to check after the build


def on_pre_build(config: Any) -> None:
    _ANCHORS.clear()


@event_priority(100)  # before mkdocs-jupyter (priority 0) wraps notebook files as pages
def on_files(files: Files, config: Any) -> Files:
    """Add ``notebooks/*.ipynb`` (source: the repository's own folder) to the site's files."""
    tutorials = next(
        (item[TUTORIALS] for item in config["nav"] or [] if isinstance(item, dict) and TUTORIALS in item),
        None,
    )
    for path in sorted((ROOT / NOTEBOOKS).glob("*.ipynb")):
        uri = f"{NOTEBOOKS}/{path.name}"
        if tutorials is not None and uri not in tutorials:
            tutorials.append(uri)
        if files.get_file_from_path(uri) is None:
            files.append(
                File(
                    uri,
                    src_dir=str(ROOT),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                )
            )
    return files


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Map a notebook's repository-relative links onto the site (see the module docstring)."""
    src = page.file.src_uri
    if not (src.startswith(f"{NOTEBOOKS}/") and src.endswith(".ipynb")):
        return html

    def relink(match: re.Match[str]) -> str:
        target, anchor = match.group(1), match.group(2) or ""
        repo_path = posixpath.normpath(posixpath.join(NOTEBOOKS, target))  # as on GitHub
        site_uri = posixpath.relpath(repo_path, DOCS) if repo_path.startswith(f"{DOCS}/") else repo_path
        found = files.get_file_from_path(site_uri)
        if found is None:
            log.warning(
                "notebook %s links to %r (%s in the repository), which is not a page of the site",
                src,
                target,
                repo_path,
            )
            return match.group(0)
        if anchor:
            _ANCHORS.append((src, found, anchor[1:]))
        return f'href="{found.url_relative_to(page.file)}{anchor}"'

    return HREF.sub(relink, html)


def on_post_build(config: Any) -> None:
    """Warn about notebook links to an anchor that their target page does not have."""
    for src, target, anchor in _ANCHORS:
        page = target.page
        ids = getattr(page, "present_anchor_ids", None)
        if ids is not None and anchor not in ids:
            log.warning(
                "notebook %s links to %s#%s, but that page has no such anchor", src, target.src_uri, anchor
            )
