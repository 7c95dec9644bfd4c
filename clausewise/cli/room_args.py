"""How ``clausewise ask`` tells contracts from questions among its positional arguments.

The rule, in order:

1. With ``--all``, every argument is a question, asked of every contract of the tenant.
2. Otherwise the leading arguments that name a contract are contracts: an ingested contract's id
   (or the name of its file), an existing file (ingested first, as needed) or an existing
   folder (its contract files). The first argument that names none starts the questions, and
   every argument after it is a question.
3. Refused, each with what to do: a first argument that names no contract (the store's "no
   contract" error, listing the tenant's contracts); no question at all (every argument names a
   contract); and an argument after the first question that names a contract (contracts come
   first: the arguments would be read two ways).

One contract (not a folder) with one question keeps ``ask``'s report; anything more is a grid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from clausewise.core.errors import ClausewiseError, ConfigError


@dataclass(frozen=True)
class RoomArguments:
    contracts: list[str]
    questions: list[str]
    every_contract: bool = False


def split_arguments(
    arguments: Sequence[str],
    is_contract: Callable[[str], bool],
    not_a_contract: Callable[[str], ClausewiseError],
    *,
    every_contract: bool = False,
) -> RoomArguments:
    """Contracts and questions of ``arguments`` by the module's rule. ``is_contract`` says
    whether an argument names a contract; ``not_a_contract`` is the error for one that should."""
    if every_contract:
        if not arguments:
            raise ConfigError(
                "no question to ask", hint='give the questions, e.g. --all "Which law governs?"'
            )
        return RoomArguments([], list(arguments), every_contract=True)
    if not arguments:
        raise ConfigError("no contract and no question", hint='clausewise ask CONTRACT "QUESTION"')
    cut = next((n for n, argument in enumerate(arguments) if not is_contract(argument)), len(arguments))
    contracts, questions = list(arguments[:cut]), list(arguments[cut:])
    if not contracts:
        raise not_a_contract(arguments[0])
    if not questions:
        named = ", ".join(repr(c) for c in contracts)
        raise ConfigError(
            f"no question: every argument names a contract ({named})",
            hint=f'put the question last, in quotes: clausewise ask {" ".join(contracts)} "Which law?"',
        )
    late = next((q for q in questions[1:] if is_contract(q)), None)
    if late is not None:
        raise ConfigError(
            f"ambiguous arguments: {late!r} names a contract but comes after the question {questions[0]!r}",
            hint="put every contract before the first question (or reword a question that is also a "
            "contract's name)",
        )
    return RoomArguments(contracts, questions)
