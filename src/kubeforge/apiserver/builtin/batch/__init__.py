"""The ``batch`` group: Jobs and CronJobs, defaulted and validated as the real server does it.

Entry point: ``kinds.KINDS``. ``jobs`` and ``cronjobs`` hold the strategies; the rules
are split as 1.32's ``pkg/apis/batch/validation`` is: ``jobspec`` (``validateJobSpec``,
shared by a CronJob's job template), ``failurepolicy`` (pod failure and success
policies), ``indexes`` (index lists), ``jobupdate``, ``jobstatus``, ``cronjob_rules``;
``jobdefaults`` are ``SetDefaults_Job``'s. ``cronschedule`` (with ``cronfields`` and
``zones``) is robfig/cron's parser, which the CronJob controller reads schedules with too.
``columns`` holds their ``kubectl get`` columns.
"""
