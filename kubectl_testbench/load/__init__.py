"""Reading YAML/JSON input the way kubectl does, keeping the position of every node."""
