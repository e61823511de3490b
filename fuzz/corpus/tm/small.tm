# src dst demand
0 1 1
2 19 0.5

7 3 2e-3
