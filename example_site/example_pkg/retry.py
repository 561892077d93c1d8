"""Retry helpers: a small retry policy with exponential backoff and jitter.

The module exists so that the example site has an autodoc page.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a failed cache refresh.

    :param attempts: the number of tries, the first one included.
    :param base_delay: the delay before the second try, in seconds.
    :param max_delay: the upper bound of any single delay, in seconds.
    :param jitter: the fraction of each delay that is randomised.
    """

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.1

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """Return the delay in seconds before try number ``attempt`` (1-based).

        The delay doubles after every try, is capped at ``max_delay``
        and is spread by ``jitter`` so that clients do not retry in step.
        """
        if attempt < 2:
            return 0.0
        raw = min(self.max_delay, self.base_delay * 2 ** (attempt - 2))
        spread = raw * self.jitter
        return raw + (rng or random).uniform(-spread, spread)


def should_retry(status: int) -> bool:
    """Tell whether an HTTP ``status`` is worth another try (429 and 5xx)."""
    return status == 429 or 500 <= status <= 599
