"""A tenant's playbooks: uploaded YAML kept per name and version, beside the built-in ones.

A playbook is stored as the text it was sent in (``<name>@<version>.yaml``), after it validated,
and is never changed in place: the same name and version sent again with other content is
refused, so a review keeps citing the positions it was held to; a changed playbook takes a new
version. Writes go to a temporary file first, which is then hard-linked under the version's name:
the link is atomic and fails where the name exists, so of two uploads of one version at once
exactly one is kept (the other is compared with it), and a reader never sees half a playbook.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from clausewise.core.errors import ConfigError, PlaybookConflict, PlaybookNotFound
from tools.playbook.positions import BUILTIN_PLAYBOOKS, Playbook, load_positions, parse_positions

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")


@dataclass(frozen=True)
class ShelvedPlaybook:
    name: str
    version: str
    positions: int
    builtin: bool
    description: str = ""
    created: bool = False  # put: this call stored it (False: the same text was already kept)


def _listing(playbook: Playbook, name: str, builtin: bool, created: bool = False) -> ShelvedPlaybook:
    return ShelvedPlaybook(
        name, playbook.version, len(playbook.positions), builtin, playbook.description, created
    )


class PlaybookShelf:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, name: str, version: str) -> Path:
        return self.folder / f"{name}@{version}.yaml"

    def put(self, text: str) -> ShelvedPlaybook:
        """Validate and keep ``text``; the same name, version and text again is a no-op."""
        playbook = parse_positions(text, "the playbook")
        if not _NAME.match(playbook.name):
            raise ConfigError(
                f"playbook name {playbook.name!r} cannot be stored",
                hint="use lower-case letters, digits and hyphens (at most 80), e.g. 'our-saas-terms'",
            )
        if playbook.name in BUILTIN_PLAYBOOKS:
            raise PlaybookConflict(
                f"{playbook.name!r} is a built-in playbook", hint="give your playbook another name"
            )
        if not _VERSION.match(playbook.version):
            raise ConfigError(
                f"playbook version {playbook.version!r} cannot be stored",
                hint="use letters, digits, dots, hyphens and underscores, e.g. '2026.2'",
            )
        path = self._path(playbook.name, playbook.version)
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".upload-", suffix=".yaml")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(temporary, path)  # atomic, and never over a version already kept
            except FileExistsError:
                kept = parse_positions(path.read_text(encoding="utf-8"), path.name)
                if kept != playbook:
                    raise PlaybookConflict(
                        f"playbook {playbook.name!r} version {playbook.version!r} is already stored with "
                        "other positions",
                        hint="give the changed playbook a new version",
                    ) from None
                return _listing(playbook, playbook.name, builtin=False, created=False)
        finally:
            Path(temporary).unlink(missing_ok=True)
        return _listing(playbook, playbook.name, builtin=False, created=True)

    def _versions(self, name: str) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(self.folder.glob(f"{name}@*.yaml"), key=lambda p: p.stat().st_mtime_ns)

    def get(self, name: str, version: str | None = None) -> Playbook:
        """A built-in playbook (at its own version), or this tenant's (its latest version unless
        ``version``)."""
        if name in BUILTIN_PLAYBOOKS:
            builtin = load_positions(name)
            if version is None or version == builtin.version:
                return builtin
            raise PlaybookNotFound(
                f"no playbook {name!r} version {version!r}",
                hint=f"the built-in {name!r} is version {builtin.version!r}; list them: GET /v1/playbooks",
            )
        if not _NAME.match(name) or (version is not None and not _VERSION.match(version)):
            raise PlaybookNotFound(f"no playbook {name!r}", hint="list the playbooks: GET /v1/playbooks")
        paths = [self._path(name, version)] if version else self._versions(name)[-1:]
        if not paths or not paths[0].is_file():
            asked = f"{name!r} version {version!r}" if version else repr(name)
            raise PlaybookNotFound(f"no playbook {asked}", hint="list the playbooks: GET /v1/playbooks")
        return parse_positions(paths[0].read_text(encoding="utf-8"), paths[0].name)

    def list(self) -> list[ShelvedPlaybook]:
        """The built-in playbooks, then this tenant's, every version."""
        listed = [_listing(load_positions(name), name, builtin=True) for name in BUILTIN_PLAYBOOKS]
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("*@*.yaml")):
                playbook = parse_positions(path.read_text(encoding="utf-8"), path.name)
                listed.append(_listing(playbook, playbook.name, builtin=False))
        return listed
