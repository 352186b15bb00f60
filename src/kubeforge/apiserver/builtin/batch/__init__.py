"""The ``batch`` group: Jobs and CronJobs, defaulted and validated as the real server does it.

Entry point: ``kinds.KINDS``. ``jobs`` holds a Job's rules (and the job spec rules a
CronJob's template shares), ``cronjobs`` a CronJob's, ``columns`` their ``kubectl get``
columns.
"""
