"""A data room's grid: cells made from short answers, values grouped for the roll-up, renderers."""
