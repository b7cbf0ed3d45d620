"""Teams: named groups of members in a space, and their boards (the sum of each team's best three)."""
