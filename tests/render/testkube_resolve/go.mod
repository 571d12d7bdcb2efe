module kubectl-testbench.local/testkuberesolve

go 1.26.0

require github.com/kubeshop/testkube v0.0.0-20260820160446-136add7677d3
