"""Playing encounters automatically: policies, play-outs, and (later) the batch simulator."""
