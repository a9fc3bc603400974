"""Small, fixed word lists the pattern tier recognises without any model.

Deliberately short: a name missing here is still found when the brain already knows it
(``known``), when its shape says what it is (CamelCase, ``ACME-1247``, ``@sam``), or when
a statement's slot does (the object of "owned by" is a person or a team).
"""

from __future__ import annotations

__all__ = ["COMPANIES", "FIRST_NAMES", "NOT_NAMES", "SYSTEMS"]

SYSTEMS = frozenset(
    """
    Postgres PostgreSQL MySQL MariaDB CockroachDB SQLite Redis Memcached Kafka RabbitMQ NATS
    SQS SNS Kinesis Kubernetes Terraform Ansible Docker Helm ArgoCD Argo Jenkins CircleCI
    Buildkite Bazel AWS GCP Azure S3 EC2 ECS EKS GKE Lambda CloudFront Cloudflare Fastly
    Snowflake BigQuery Redshift Databricks Spark Flink Airflow Dagster dbt Looker Tableau
    Metabase ClickHouse Elasticsearch OpenSearch MongoDB DynamoDB Cassandra Vitess Datadog
    Grafana Prometheus Loki Tempo PagerDuty Opsgenie Sentry Honeycomb OpenTelemetry Jaeger
    GitHub GitLab Bitbucket Jira Confluence Linear Notion Slack Zoom Figma LaunchDarkly
    Unleash Okta Auth0 Vault Consul Nomad Nginx Envoy Istio Linkerd Stripe Twilio SendGrid
    Segment Amplitude Mixpanel Salesforce HubSpot Zendesk Intercom Heroku Vercel Netlify
    Python Go Golang Rust Java Kotlin TypeScript JavaScript Ruby Scala Elixir React Vue
    Django FastAPI Flask Rails Celery Sidekiq Temporal gRPC GraphQL Kibana Logstash Fluentd
    Vector Pulumi Backstage Retool Supabase Firebase Auth0 Keycloak 1Password Bazel pgvector
    Tailscale WireGuard Nexus Artifactory Sonarqube Snyk Dependabot Renovate Playwright
    Cypress Storybook Webpack Vite Node.js Deno Bun Postman Swagger OpenAPI Hasura Prisma
    """.split()
)

COMPANIES = frozenset(
    """
    Google Microsoft Amazon Apple Meta Netflix Oracle IBM SAP Adobe Atlassian Shopify
    Salesforce Stripe Twilio Cloudflare Datadog Snowflake Databricks OpenAI Anthropic Nvidia
    Intel AMD Deloitte Accenture McKinsey KPMG PwC Visa Mastercard PayPal Adyen Klarna
    Revolut Monzo Uber Airbnb Spotify Zalando Siemens Bosch Vodafone Telefonica Acme
    Globex Initech Umbrella Hooli Wayne Stark Contoso Fabrikam Northwind
    """.split()
)

# Common given names from many languages: a capitalised pair starting with one is a person.
FIRST_NAMES = frozenset(
    """
    Aaron Abdul Adam Adrian Ahmed Aisha Alex Alexander Alexandra Ali Alice Amara Amir Amy
    Ana Anders Andrea Andrew Angela Anna Anne Anton Arjun Ava Ayesha Ben Benjamin Bianca
    Bob Brian Carla Carlos Caroline Charlotte Chen Chloe Chris Christina Claire Daniel
    Dario David Deepa Diana Diego Dmitri Elena Eli Elif Elizabeth Emily Emma Eric Erik
    Esther Ethan Fatima Felix Fiona Francesca Frank Gabriel Grace Hana Hannah Hassan Helen
    Henrik Hiro Hugo Ian Ines Ingrid Isabel Ivan Jack Jacob Jake James Jan Jane Javier Jen
    Jennifer Jin Joao João Joe John Jonas Jordan Jose José Juan Julia Karim Kate Kenji Kevin
    Kim Kofi Lars Laura Lea Leah Lena Leo Li Liam Lina Linda Lisa Lucas Lucia Luis Luka
    Maria Marco Mark Marta Martin Mateo Matt Maya Mei Mia Michael Miguel Mike Ming Mohammed
    Nadia Naomi Nate Nia Nick Nikhil Nina Noah Nora Olga Oliver Olivia Omar Oscar Pablo
    Paul Pedro Peter Pia Priya Rahul Raj Ravi Rebecca Ren Rosa Ruth Ryan Sam Samir Sara
    Sarah Sean Sofia Sophie Stefan Sven Tariq Tom Tomas Tomás Tyler Valentina Victor Wei
    Will Xin Yara Yuki Yusuf Zara Zoe Kai Noor Jamal Amaka Chidi Ngozi Sanjay Anil Meera
    Rohan Aditi Lin Hao Yan Mateus Rafael Camila Lucía Björn Astrid Freya Niamh Siobhan
    Declan Aoife Tanvir Farah Leila Dara Oren Noa Tal Avi Hugo Jules Elodie Margaux
    Steve Stephen Lauren Kyle Owen Gary Mick Michelle Tony Anthony Dean Kerry Becky Faye
    Janice Gareth Sana Dominic Keith Karen Kelly Louise Lucy Tracey Tracy Sharon Nicola
    Natalie Rachel Samantha Jessica Jason Justin Scott Craig Neil Nigel Graham Simon Stuart
    Richard Robert Roger Colin Derek Darren Luke Matthew Thomas Joseph Joshua Nathan Callum
    Connor Harry George Henry Edward Charlie Archie Ellie Megan Amelia Isla Phoebe Katie
    Kathryn Catherine Jenny Julie Gemma Hayley Danielle Stacey Leanne Donna Debbie Deborah
    Sandra Susan Margaret Patricia Barbara Elaine Gillian Joanne Abigail Bethany Kirsty
    Marcus Tomasz Ibrahim Muhammad Mohamed Tim Tobias Dan Danny Ken Helena Ian Vikram
    """.split()
)

# Capitalised words that start sentences or headings and are never a name.
NOT_NAMES = frozenset(
    """
    The A An We Our Us I It Its This That These Those There Here They Their He She His Her
    You Your If When Where Why How What Who Which Whose All Any Each Every No Not None Some
    Owner Owners Status Decision Decided Agreed Note Notes Action Actions TODO Todo Done
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    May June July August September October November December Today Tomorrow Yesterday
    Please Also But And Or So Then After Before Since Until From To For With Without On In
    At By Of As Per Via Q Yes Ok OK Update Updates Team Project Billing Launch Deadline
    Meeting Standup Retro Incident Outage Release Deploy Migration Database Customer Support
    Sales Finance Legal Security Platform Infra Infrastructure Data Engineering Product
    Design Marketing Ops Operations HR People Payments Checkout Search Mobile Web Backend
    Frontend API Runbook Handbook Policy Process Goal Goals Risk Risks Summary Context
    Background Next Previous Current New Old Everyone Nobody Someone Anyone Going Moving
    """.split()
)
