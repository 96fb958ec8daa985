"""Relations by order (lib/measure/order.ts, since floorline-facts/4), ported line by line: does a
text content put the source's neighbouring tokens next to each other more often than a random
order of its own tokens would? A content that keeps a source's words but not which of them stand
together keeps no statement of it.

A token's identity here is its text in lower case (ASCII only), what the TypeScript's `norm`
stands for: one atom for a token read from one raw token, the atoms of its parts for a token
joined across raw tokens ("4 GB"). A raw token holds no space and a joined token's text is its
parts' texts joined by one, so equal lower-case texts are exactly equal norms."""

from __future__ import annotations

from typing import Iterator

from .chars import ascii_lower
from .text import TextDoc

# Neighbouring tokens shared with the source a content must have for the test to judge it.
ORDER_MIN_PAIRS = 20
# How many times chance a content must keep the source's neighbours to count in full; between
# chance (1) and this, its coverage is scaled down in proportion, to nothing at chance.
ORDER_LIFT = 4


def _neighbours(doc: TextDoc) -> Iterator[tuple[str, str]]:
    """Each two tokens next to each other within a line and a sentence, by their norms, but not
    two parts of one raw token ("GNU/Linux"): a shuffle of words keeps those together."""
    for tokens in doc.lines:
        for k in range(len(tokens) - 1):
            if tokens[k].ends or tokens[k].inner:
                continue
            yield ascii_lower(tokens[k].text), ascii_lower(tokens[k + 1].text)


class SourcePairs:
    """The source's neighbouring tokens, built once per source (order.ts SourcePairs). The
    followers of each leading token keep the order their pairs were first met in."""

    __slots__ = ("pairs", "norms", "followers")

    def __init__(self, doc: TextDoc) -> None:
        self.pairs: set[tuple[str, str]] = set()
        self.norms: set[str] = set()
        self.followers: dict[str, list[str]] = {}
        for a, b in _neighbours(doc):
            self.norms.add(a)
            self.norms.add(b)
            if (a, b) in self.pairs:
                continue
            self.pairs.add((a, b))
            self.followers.setdefault(a, []).append(b)


def order_evidence(content: TextDoc, source: SourcePairs) -> tuple[int, int, float]:
    """(shared, kept, chance): of the content's neighbouring tokens that both occur in the source,
    how many there are, how many are neighbours in the source too, and how many a random order of
    the content's tokens would keep on average (order.ts orderEvidence)."""
    # How often the content states each token it shares with the source, in first-seen order.
    counts: dict[str, int] = {}
    n = 0
    holds = source.norms
    for tokens in content.lines:
        for t in tokens:
            norm = ascii_lower(t.text)
            if norm not in holds:
                continue
            counts[norm] = counts.get(norm, 0) + 1
            n += 1
    shared = 0
    kept = 0
    for a, b in _neighbours(content):
        if a not in counts or b not in counts:
            continue
        shared += 1
        if (a, b) in source.pairs:
            kept += 1
    if shared < ORDER_MIN_PAIRS:
        return shared, kept, 0.0
    # A random order of these n tokens puts a given two next to each other, at a given place, with
    # probability c(a) c(b) / n²: summed over the source's pairs, the share of places keeping one.
    # Floats summed in the TypeScript's order, so the answers are the same bits.
    chance = 0.0
    for a, ca in counts.items():
        for b in source.followers.get(a, ()):
            cb = counts.get(b)
            if cb is not None:
                chance += float(ca * cb)
    return shared, kept, (chance / float(n * n)) * shared


def order_factor(shared: int, kept: int, chance: float) -> float:
    """What a content's coverage counts for by its order: 1 without enough evidence or at
    ORDER_LIFT times chance and above, 0 at chance or below, in proportion between."""
    if shared < ORDER_MIN_PAIRS or chance <= 0:
        return 1
    lift = kept / chance
    return min(1, max(0, (lift - 1) / (ORDER_LIFT - 1)))
