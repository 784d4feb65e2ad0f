from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views
from .accounts.views import PasswordSetView

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("logins/locked/", views.locked_logins, name="locked_logins"),
    path("accounts/", include("ioleval.accounts.urls")),
    # One-time set-password links (ioleval.accounts.services.password_link).
    path("reset/<uidb64>/<token>/", PasswordSetView.as_view(), name="password_set"),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("admin/", admin.site.urls),
    path("", include("puzzles.urls")),
    path("", include("grading.urls")),
]
