"""Approvals: who may answer (rules, four eyes), the inbox, signed links, webhooks and their redelivery."""
