"""What a competition is: its `competition.yaml` schema (`spec`), its submission windows
(`schedule`) and the registry through which tracks add boards of their own (`boards`)."""
