"""What people type: parsing values, the `/quiz ...` grammar (commands) and its runner."""
