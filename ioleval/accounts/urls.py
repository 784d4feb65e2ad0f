from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("", views.account_list, name="list"),
    path("create/", views.account_create, name="create"),
    path("upload/", views.accounts_upload, name="upload"),
    path("deactivate/", views.account_deactivate, name="deactivate"),
    path("reactivate/", views.account_reactivate, name="reactivate"),
    path("password-link/", views.account_password_link, name="password_link"),
]
