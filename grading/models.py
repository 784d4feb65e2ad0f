"""The jury: papers, rubrics, assignments, marks (built in the jury issue)."""
