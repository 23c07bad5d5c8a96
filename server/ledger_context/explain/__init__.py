"""The breakdown of a pack (spec §8): the full explanation, the bounded brief, one
document's path through the rules, text readouts and the budget page."""
