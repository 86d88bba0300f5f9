"""The predictions pull-request pipeline: phase 1 scores with the key, phase 2 publishes."""
