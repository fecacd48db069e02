"""Running a tournament's matches on a Ray cluster (README "Ray cluster").

``executor.RayExecutor`` (the driver side: hands scheduled matches to workers, re-queues the
match of a lost worker, keeps crash counts) and ``worker.MatchWorker`` (the Ray actor: its own
arena server and bot pool on its node). Importing this package does not import Ray.
"""
