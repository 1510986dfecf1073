"""Duplicate-deal evaluation of agents: matches with confidence intervals, reports and yardsticks."""
