"""Test code shared by several test folders: paths, fake servers, test beds, canned inputs."""
