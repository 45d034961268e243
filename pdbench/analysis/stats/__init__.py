"""Statistics shared by the analyses: Student t without scipy, confidence intervals, and the
comparisons between conditions (differences, permutation tests, Holm correction)."""
