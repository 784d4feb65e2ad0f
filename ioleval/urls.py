from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("logins/locked/", views.locked_logins, name="locked_logins"),
    path("admin/", admin.site.urls),
    path("", include("puzzles.urls")),
    path("", include("grading.urls")),
]
