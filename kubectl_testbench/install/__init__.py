"""What ``kubectl testbench install`` ships: the Experiment CRD, the phase TestWorkflowTemplates, the Grafana
dashboard and (in operator mode) the controller. Pure functions from options to manifests; no I/O."""
