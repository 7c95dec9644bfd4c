"""Prompt templates from ``prompts/``: a system part and a user part, placeholders ``$name``.

Contract text may only enter a prompt inside an ``<evidence>`` (or ``<clause>``, ``<contract>``)
section, and closing tags inside inserted text are neutralised, so a contract cannot end its own
section and speak as the user. The system parts say that instructions inside evidence are data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from string import Template

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from clausewise.core.errors import ConfigError

_SECTION = re.compile(r"^### (system|user)\s*$", re.MULTILINE)
_TAGS = """evidence clause contract question context instructions report draft exemplars hypothesis provision
history asked answer sources failures contract_outline text category kind""".split()
_CLOSING = re.compile(r"</\s*(" + "|".join(_TAGS) + r")\s*>", re.IGNORECASE)


def neutralise(value: str) -> str:
    """Break closing tags in untrusted text ("</evidence>" -> "</ evidence>")."""
    return _CLOSING.sub(lambda m: f"</ {m.group(1)}>", value)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    system: Template
    user: Template

    def messages(self, **values: object) -> list[BaseMessage]:
        safe = {k: neutralise(str(v)) for k, v in values.items()}
        try:
            return [
                SystemMessage(content=self.system.substitute(safe).strip()),
                HumanMessage(content=self.user.substitute(safe).strip()),
            ]
        except KeyError as exc:
            raise ConfigError(f"prompt {self.name!r} needs a value for {exc}", hint="this is a bug") from exc

    @property
    def system_text(self) -> str:
        return self.system.template.strip()


@lru_cache(maxsize=64)
def load_prompt(name: str) -> PromptTemplate:
    path = resources.files("prompts") / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"no prompt template {name!r}", hint="see the prompts/ folder")
    parts = _SECTION.split(path.read_text(encoding="utf-8"))
    sections = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"system", "user"}:
        raise ConfigError(
            f"prompt {name!r} must have '### system' and '### user' sections", hint="fix the file"
        )
    return PromptTemplate(name, Template(sections["system"]), Template(sections["user"]))
