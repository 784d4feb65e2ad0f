"""Forms of the accounts pages."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from .services import ROLE_GROUPS, field_length


class AccountForm(forms.Form):
    """A new account; its lengths are the user model's (services.field_length)."""

    username = forms.CharField(max_length=field_length("username"))
    name = forms.CharField(max_length=field_length("name"), required=False)
    email = forms.EmailField(max_length=field_length("email"), required=False)
    role = forms.ChoiceField(choices=[(r, r) for r in ROLE_GROUPS], initial="juror")


class AccountsUploadForm(forms.Form):
    file = forms.FileField(help_text="CSV: username,name,email,role (juror, chair or organizer)")


class AccountActionForm(forms.Form):
    """The account a row's button acts on."""

    user = forms.ModelChoiceField(queryset=get_user_model().objects.all(), to_field_name="pk")
